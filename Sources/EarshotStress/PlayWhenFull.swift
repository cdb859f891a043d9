import Earshot
import Foundation

/// What one `play` costs once the voice pool is full (`earshot stress --play-cost`): every
/// slot holds a voice, so each play must find the virtual voice that stands lowest
/// and evict it (or be refused). For each pool size, the pool is filled with looping voices of
/// one clip (64 real, the rest virtual), one update ranks them, and then `plays` plays of the
/// same clip with the same options are timed in one frame — each new voice is the newest, so it
/// outranks the oldest virtual one and evicts it: the eviction path, every time. The best of
/// `rounds` is kept; the heap allocations of the timed calls are counted with the counter handed
/// in (the first round warms up and is not counted).
///
/// The figure guards the pool's min-heap of virtual voices by standing
/// (Sources/Earshot/Voices/VoicePool+Eviction.swift): a scan of every voice costs about 12 µs per
/// play at 4,096 voices in a release build.
///
/// ```swift
/// let full = try PlayWhenFull(poolSizes: [256, 4096], plays: 1_000, rounds: 2).run(allocations: .none)
/// for r in full { print(r.poolSize, r.nanosecondsPerPlay) }
/// ```
public struct PlayWhenFull: Sendable {
    public var poolSizes: [Int]
    public var plays: Int
    public var rounds: Int

    public init(poolSizes: [Int] = [256, 1024, 4096], plays: Int = 5_000, rounds: Int = 4) {
        self.poolSizes = poolSizes
        self.plays = plays
        self.rounds = rounds
    }

    /// The figures of one pool size.
    public struct Result: Sendable, Codable, Equatable {
        /// `Configuration.maxVirtualVoices` (the pool holds this many voices plus the real ones).
        public var poolSize: Int
        /// Best nanoseconds per `play(clip)` into the full pool over the counted rounds.
        public var nanosecondsPerPlay: Double
        /// Evictions per round (each play into the full pool evicts one voice).
        public var evictionsPerRound: Int
        /// Heap allocations of every counted play (nil: no counter).
        public var allocations: UInt64?
        /// Plays timed per round.
        public var plays: Int
    }

    public func run(allocations counter: AllocationCounter) throws -> [Result] {
        try poolSizes.map { try run(poolSize: $0, allocations: counter) }
    }

    func run(poolSize: Int, allocations counter: AllocationCounter) throws -> Result {
        var config = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000), maxRealVoices: 64, randomSeed: 1)
        config.maxVirtualVoices = poolSize
        let engine = try AudioEngine(configuration: config)
        defer { engine.shutdown() }
        let samples = (0..<4_800).map { Int16((0.2 * 32767 * sin(2 * .pi * 440 * Double($0) / 48_000)).rounded()) }
        let clip = try engine.loadClip(
            PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(samples)), name: "440 Hz")
        let options = PlayOptions(gain: 0.5, loop: true)
        let counting = counter.isActive()
        var best = Double.infinity, allocs: UInt64 = 0, evictions = 0
        let capacity = poolSize + engine.stats.voiceSources
        for round in 0..<rounds {
            for _ in 0..<capacity { try engine.play(clip, options: options) }
            engine.update()
            _ = try engine.render(frames: 480)
            let evictedBefore = engine.stats.evictions
            let counted = round > 0 && counting
            let before = counter.count()
            if counted { counter.setCounting(true) }
            let t0 = Clocks.monotonic()
            for _ in 0..<plays { try engine.play(clip, options: options) }
            let elapsed = Clocks.monotonic() - t0
            if counted {
                counter.setCounting(false)
                allocs += counter.count() - before
            }
            evictions = engine.stats.evictions - evictedBefore
            if round > 0 { best = min(best, elapsed / Double(plays) * 1e9) }
            engine.stopAllVoices()
            for _ in 0..<4 {
                engine.update()
                _ = try engine.render(frames: 480)
            }
        }
        return Result(poolSize: poolSize, nanosecondsPerPlay: best, evictionsPerRound: evictions,
                      allocations: counting ? allocs : nil, plays: plays)
    }
}
