import Earshot
import Foundation

/// What one `play` costs: a clip played directly against a ``Sound`` with selection, pitch and
/// gain variation and an instance limit, on the same loopback engine, in alternating rounds
/// (`earshot stress --play-cost`) — once with one clip, once with four.
///
/// With four clips, a source that played another clip must be given the new buffer
/// (`AL_BUFFER`), which allocates a buffer-queue item inside OpenAL Soft 1.19.1 — for a clip
/// played directly as much as for a sound; with one clip every source keeps its buffer, so what
/// is counted there is Earshot's own. Each round plays `batch` voices (non-positional, one-shots,
/// none stolen: the limit is above the batch), timing only the `play` calls, then stops them all and renders the fades out. The
/// heap allocations of the `play` calls are counted with the counter handed in (the `earshot`
/// executable's malloc interposer); the first round of each kind warms up and is not counted.
///
/// ```swift
/// let cost = try PlayCost(batch: 200, rounds: 5).run(allocations: .none)
/// print(cost.single.soundOverClip)
/// ```
public struct PlayCost: Sendable {
    public var batch: Int
    public var rounds: Int

    public init(batch: Int = 200, rounds: Int = 9) {
        self.batch = batch
        self.rounds = rounds
    }

    /// The figures of both runs: one clip (``single``) and four (``four``).
    public struct Report: Sendable, Codable, Equatable {
        public var single: Result
        public var four: Result
    }

    /// The figures of one run.
    public struct Result: Sendable, Codable, Equatable {
        /// Best nanoseconds per `play(clip)` over the rounds.
        public var clipNanoseconds: Double
        /// Best nanoseconds per `play(sound)` over the rounds.
        public var soundNanoseconds: Double
        /// Heap allocations of every counted `play(clip)` / `play(sound)` call (nil: no counter).
        public var clipAllocations: UInt64?
        public var soundAllocations: UInt64?
        /// Plays timed of each kind.
        public var plays: Int

        /// `play(sound)` over `play(clip)`.
        public var soundOverClip: Double { soundNanoseconds / clipNanoseconds }
    }

    public func run(allocations counter: AllocationCounter) throws -> Report {
        Report(single: try run(clipCount: 1, allocations: counter), four: try run(clipCount: 4, allocations: counter))
    }

    func run(clipCount: Int, allocations counter: AllocationCounter) throws -> Result {
        var config = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000), maxRealVoices: 255, randomSeed: 1)
        config.maxVirtualVoices = max(4096, batch * 2)
        let engine = try AudioEngine(configuration: config)
        defer { engine.shutdown() }
        let clips = try [440.0, 550, 660, 770].prefix(clipCount).map { f -> Clip in
            let samples = (0..<24_000).map { Int16((0.2 * 32767 * sin(2 * .pi * f * Double($0) / 48_000)).rounded()) }
            return try engine.loadClip(
                PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(samples)), name: "\(Int(f)) Hz")
        }
        let sound = try engine.makeSound(
            SoundDefinition(
                clips: Array(clips), selection: .random, avoidRepeat: clipCount > 1 ? 1 : 0, pitchVariation: 50,
                gainVariation: 2, limit: .init(count: batch + 1, steal: .oldest)))
        let counting = counter.isActive()
        var bestClip = Double.infinity, bestSound = Double.infinity
        var clipAllocs: UInt64 = 0, soundAllocs: UInt64 = 0
        let clipOptions = PlayOptions(gain: 0.5)
        let soundOptions = SoundPlayOptions()
        for round in 0..<rounds {
            for kind in 0..<2 {
                let counted = round > 0 && counting
                let before = counter.count()
                if counted { counter.setCounting(true) }
                let t0 = Clocks.monotonic()
                if kind == 0 {
                    for i in 0..<batch { _ = try engine.play(clips[i % clipCount], options: clipOptions) }
                } else {
                    for _ in 0..<batch { _ = try engine.play(sound, options: soundOptions) }
                }
                let elapsed = Clocks.monotonic() - t0
                if counted {
                    counter.setCounting(false)
                    if kind == 0 {
                        clipAllocs += counter.count() - before
                    } else {
                        soundAllocs += counter.count() - before
                    }
                }
                if round > 0 {
                    let ns = elapsed / Double(batch) * 1e9
                    if kind == 0 { bestClip = min(bestClip, ns) } else { bestSound = min(bestSound, ns) }
                }
                engine.stopAllVoices()
                for _ in 0..<4 {
                    engine.update()
                    _ = try engine.render(frames: 480)
                }
            }
        }
        return Result(
            clipNanoseconds: bestClip, soundNanoseconds: bestSound, clipAllocations: counting ? clipAllocs : nil,
            soundAllocations: counting ? soundAllocs : nil, plays: batch * max(rounds - 1, 0))
    }
}
