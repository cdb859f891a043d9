@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Sounds (issue 15): limits, cooldowns and selections measured on the loopback output.
final class SoundPlayTests: XCTestCase {
    private func left(_ x: [Float]) -> [Float] { MusicRender.left(x) }

    /// Every event delivered so far (the stream is read after each update on the test's thread).
    private final class EventLog: @unchecked Sendable {
        // Written by the stream's task, read after a wait: the lock orders both.
        private let lock = NSLock()
        private var events: [VoiceEvent] = []
        func add(_ e: VoiceEvent) { lock.lock(); events.append(e); lock.unlock() }
        var all: [VoiceEvent] { lock.lock(); defer { lock.unlock() }; return events }
    }

    private func listen(_ e: AudioEngine) -> EventLog {
        let log = EventLog()
        let stream = e.voiceEvents
        Task.detached { for await ev in stream { log.add(ev) } }
        return log
    }

    private func waitFor(_ log: EventLog, count: Int, _ what: (VoiceEvent) -> Bool) {
        let deadline = Date().addingTimeInterval(5)
        while log.all.filter(what).count < count, Date() < deadline { usleep(2_000) }
    }

    /// `limit: { count: 3, steal: oldest }` played 20 times at once sounds like 3, not 20: the
    /// level is three voices' level, 17 voices were stolen (and reported so), 3 remain.
    func testLimitOldestPlayedTwentyTimesSoundsLikeThree() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let log = listen(e)
        let tone = try e.loadClip(TestSignals.sine(frequency: 500, amplitude: 0.04, seconds: 2), name: "tone")
        let one = try e.makeSound(SoundDefinition(clips: [tone], loop: true))
        _ = try e.play(one)
        let single = Level.rms(left(try TestSignals.renderGameFrames(e, seconds: 0.3)), 4_800..<14_400)
        e.stopAllVoices()
        try TestSignals.renderGameFrames(e, seconds: 0.1)

        let limited = try e.makeSound(SoundDefinition(clips: [tone], limit: .init(count: 3, steal: .oldest), loop: true))
        for _ in 0..<20 { XCTAssertNotEqual(try e.play(limited).status, .refused) }
        let out = left(try TestSignals.renderGameFrames(e, seconds: 0.3))
        let level = Level.rms(out, 4_800..<14_400)
        XCTAssertEqual(level / single, 3, accuracy: 0.05, "three voices' level (20 would be 20×): \(level / single)")
        XCTAssertEqual(e.instanceCount(of: limited), 3)
        XCTAssertEqual(e.stats.limitSteals, 17)
        XCTAssertEqual(e.stats.realVoices, 3)
        waitFor(log, count: 17) { $0.reason == .stolen }
        let stolen = log.all.filter { $0.reason == .stolen }
        XCTAssertEqual(stolen.count, 17)
        XCTAssertTrue(stolen.allSatisfy { $0.sound == limited }, "each stolen voice names its sound")
    }

    /// `quietest` steals the voice heard least; `perEmitter` limits one emitter's voices only.
    func testQuietestAndPerEmitterLimits() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(frequency: 500, amplitude: 0.1, seconds: 1), name: "tone")
        let s = try e.makeSound(SoundDefinition(clips: [tone], limit: .init(count: 2, steal: .quietest), loop: true))
        let loud = try e.play(s, options: { var o = SoundPlayOptions(); o.gain = 1; return o }())
        let quiet = try e.play(s, options: { var o = SoundPlayOptions(); o.gain = 0.2; return o }())
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        let third = try e.play(s)
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        XCTAssertTrue(loud.isPlaying)
        XCTAssertFalse(quiet.isPlaying, "the quietest was stolen")
        XCTAssertTrue(third.isPlaying)

        let a = try e.makeEmitter(SpatialProperties(position: Vector3(1, 0, 0)))
        let b = try e.makeEmitter(SpatialProperties(position: Vector3(-1, 0, 0)))
        let per = try e.makeSound(SoundDefinition(clips: [tone], limit: .init(count: 4, steal: .refuse, perEmitter: 1), loop: true))
        XCTAssertNotEqual(try e.play(per, options: SoundPlayOptions(emitter: a)).status, .refused)
        XCTAssertEqual(try e.play(per, options: SoundPlayOptions(emitter: a)).status, .refused, "a second on emitter a is refused")
        XCTAssertNotEqual(try e.play(per, options: SoundPlayOptions(emitter: b)).status, .refused, "emitter b has its own allowance")
        XCTAssertEqual(e.stats.limitRefusals, 1)
    }

    /// `virtual`: past the limit a play starts virtual (silent, time running) and is heard when
    /// an audible one ends — as the newest waiting voice, joining mid-clip.
    func testLimitVirtualHoldsThenReleases() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let low = try e.loadClip(TestSignals.sine(frequency: 400, amplitude: 0.1, seconds: 1), name: "low")
        let high = try e.loadClip(TestSignals.sine(frequency: 1_200, amplitude: 0.1, seconds: 1), name: "high")
        let s = try e.makeSound(SoundDefinition(clips: [low, high], selection: .sequence,
                                                limit: .init(count: 1, steal: .virtual), loop: true))
        let first = try e.play(s)
        let second = try e.play(s)
        var out = left(try TestSignals.renderGameFrames(e, seconds: 0.3))
        XCTAssertEqual(ToneMeasure.frequency(Array(out[4_800..<14_400]), sampleRate: 48_000), 400, accuracy: 4,
                       "only the first is heard")
        XCTAssertEqual(second.status, .virtual)
        XCTAssertEqual(e.stats.limitHolds, 1)
        first.stop()
        try TestSignals.renderGameFrames(e, seconds: 0.1)
        out = left(try TestSignals.renderGameFrames(e, seconds: 0.3))
        XCTAssertEqual(ToneMeasure.frequency(Array(out[4_800..<14_400]), sampleRate: 48_000), 1_200, accuracy: 12,
                       "the held one is heard once the first ended")
        XCTAssertEqual(second.status, .real)
    }

    /// Cooldown: ten plays 50 ms apart with a 0.5 s cooldown give one onset; nine refusals are
    /// counted and reported as `.cooldown` with the sound.
    func testCooldownGivesOneOnset() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let log = listen(e)
        let click = try e.loadClip(TestSignals.sine(frequency: 800, amplitude: 0.3, seconds: 0.02), name: "click")
        let s = try e.makeSound(SoundDefinition(clips: [click], cooldown: 0.5))
        var out: [Float] = []
        var started = 0
        for _ in 0..<10 {
            if try e.play(s).status != .refused { started += 1 }
            out += try TestSignals.renderGameFrames(e, seconds: 0.05)
        }
        out += try TestSignals.renderGameFrames(e, seconds: 0.1)
        XCTAssertEqual(started, 1)
        XCTAssertEqual(onsets(left(out)), 1)
        XCTAssertEqual(e.stats.cooldownRefusals, 9)
        waitFor(log, count: 9) { $0.reason == .cooldown }
        let refusals = log.all.filter { $0.reason == .cooldown }
        XCTAssertEqual(refusals.count, 9)
        XCTAssertTrue(refusals.allSatisfy { $0.sound == s && $0.voice.status == .refused })
        // After the cooldown, it plays again.
        XCTAssertNotEqual(try e.play(s).status, .refused)
    }

    /// `refuse`: past the limit plays return nil, are counted and reported.
    func testRefuseIsCountedAndReported() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let log = listen(e)
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
        let s = try e.makeSound(SoundDefinition(clips: [tone], limit: .init(count: 2, steal: .refuse)))
        let results = try (0..<5).map { _ in try e.play(s) }
        XCTAssertEqual(results.filter { $0.status != .refused }.count, 2)
        XCTAssertEqual(e.stats.limitRefusals, 3)
        try TestSignals.renderGameFrames(e, seconds: 0.7)
        waitFor(log, count: 3) { $0.reason == .refused }
        waitFor(log, count: 2) { $0.reason == .finished }
        XCTAssertEqual(log.all.filter { $0.reason == .refused && $0.sound == s }.count, 3)
        XCTAssertEqual(log.all.filter { $0.reason == .finished && $0.sound == s }.count, 2, "finished voices name their sound")
    }

    /// `shuffle` over three clips of different pitch: every block of three plays holds all three.
    /// The same seed renders bit-identical output; another seed a different order.
    func testShuffleBlocksHoldEveryClipAndSeedsRepeat() throws {
        func render(seed: UInt64) throws -> (samples: [Float], order: [Double]) {
            let e = try TestSignals.loopbackEngine { $0.randomSeed = seed }
            defer { e.shutdown() }
            let clips = try [440.0, 660, 990].map { f in
                try e.loadClip(TestSignals.sine(frequency: f, amplitude: 0.3, seconds: 0.1), name: "\(f)")
            }
            let s = try e.makeSound(SoundDefinition(clips: clips, selection: .shuffle, pitchVariation: 20, gainVariation: 1))
            var out: [Float] = []
            var order: [Double] = []
            for _ in 0..<12 {
                try e.play(s)
                let block = left(try TestSignals.renderGameFrames(e, seconds: 0.15))
                order.append(ToneMeasure.frequency(Array(block[480..<4_320]), sampleRate: 48_000))
                out += block
            }
            return (out, order)
        }
        let a = try render(seed: 7)
        let names = a.order.map { f in [440.0, 660, 990].min { abs($0 - f) < abs($1 - f) }! }
        for block in stride(from: 0, to: 12, by: 3) {
            XCTAssertEqual(Set(names[block..<block + 3]), [440, 660, 990], "block \(block / 3): \(names[block..<block + 3])")
        }
        // ±20 cents: every measured pitch within 1.2 % of its clip's.
        for (f, n) in zip(a.order, names) { XCTAssertEqual(f / n, 1, accuracy: 0.013) }
        let again = try render(seed: 7)
        XCTAssertEqual(a.samples, again.samples, "the same seed renders bit-identically")
        let other = try render(seed: 8)
        XCTAssertNotEqual(other.order.map { ($0 / 10).rounded() }, a.order.map { ($0 / 10).rounded() }, "another seed, another order")
    }

    /// Pitch and gain variation stay inside their ranges and do vary.
    func testVariationStaysInRange() throws {
        let e = try TestSignals.loopbackEngine { $0.randomSeed = 1 }
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(frequency: 1_000, amplitude: 0.2, seconds: 0.1), name: "tone")
        let s = try e.makeSound(SoundDefinition(clips: [tone], pitchVariation: 100, gainVariation: 6))
        var pitches: [Float] = [], gains: [Float] = []
        for _ in 0..<200 {
            let v = try e.play(s)
            pitches.append(try XCTUnwrap(v.pitch))
            gains.append(try XCTUnwrap(v.gain))
            v.stop()
            e.update()
        }
        let cents = pitches.map { 1200 * log2(Double($0)) }
        let dbs = gains.map { Level.dB(Double($0)) }
        XCTAssertLessThanOrEqual(cents.map(abs).max() ?? 0, 100)
        XCTAssertGreaterThan(cents.max()! - cents.min()!, 150, "spread over most of ±100 cents")
        XCTAssertLessThanOrEqual(dbs.map(abs).max() ?? 0, 6.0001)
        XCTAssertGreaterThan(dbs.max()! - dbs.min()!, 9)
    }

    /// A play can begin part-way into its clip (without a click) and repeat a number of times,
    /// gaplessly, then end as finished.
    func testOffsetAndLoopCount() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let log = listen(e)
        // 1.5 s at 400 Hz, then 0.5 s at 1200 Hz: beginning at 1.5 s plays only the second part.
        var samples: [Int16] = []
        for i in 0..<96_000 {
            let f = i < 72_000 ? 400.0 : 1_200
            samples.append(Int16((0.3 * 32767 * sin(2 * .pi * f * Double(i) / 48_000)).rounded()))
        }
        let twoPart = try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(samples)), name: "two-part")
        var options = PlayOptions()
        options.offset = 1.5
        _ = try e.play(twoPart, options: options)
        let out = left(try TestSignals.renderGameFrames(e, seconds: 0.6))
        XCTAssertEqual(ToneMeasure.frequency(Array(out[2_400..<19_200]), sampleRate: 48_000), 1_200, accuracy: 12)
        let start = MusicRender.firstSound(out)
        XCTAssertLessThan(MusicRender.maxStep(out, start..<(start + 480)), 0.08, "no click at the offset (a 1200 Hz tone's own step is 0.047)")
        XCTAssertEqual(Double(MusicRender.lastSound(out)), 24_000, accuracy: 48, "0.5 s left to play")

        // loopCount 2: three passes of 0.25 s, gapless, then finished.
        let tone = try e.loadClip(TestSignals.sine(frequency: 480, amplitude: 0.3, seconds: 0.25), name: "pass")
        var loops = PlayOptions()
        loops.loopCount = 2
        let v = try e.play(tone, options: loops)
        let passes = left(try TestSignals.renderGameFrames(e, seconds: 1.0))
        let first = MusicRender.firstSound(passes), last = MusicRender.lastSound(passes)
        XCTAssertEqual(Double(last - first), 36_000, accuracy: 40, "three passes of 12,000 frames")
        let steady = Level.rms(passes, (first + 4_800)..<(first + 7_200))
        for k in 1..<3 {
            let seam = first + k * 12_000
            XCTAssertEqual(Level.rms(passes, (seam - 1_200)..<(seam + 1_200)) / steady, 1, accuracy: 0.02, "no gap at pass \(k)")
            XCTAssertLessThan(MusicRender.maxStep(passes, (seam - 100)..<(seam + 100)), 0.02, "no step at pass \(k)")
        }
        XCTAssertFalse(v.isPlaying)
        waitFor(log, count: 1) { $0.voice == v }
        XCTAssertEqual(log.all.first { $0.voice == v }?.reason, .finished)
        XCTAssertThrowsError(try e.play(tone, options: { var o = PlayOptions(); o.offset = 0.3; return o }()))
        XCTAssertThrowsError(try e.play(tone, options: { var o = PlayOptions(loop: true); o.loopCount = 1; return o }()))
    }

    /// A loop count survives going virtual and back: the voice still plays its passes in all.
    func testLoopCountAcrossASteal() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 1)
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(frequency: 480, amplitude: 0.3, seconds: 0.25), name: "pass")
        var loops = PlayOptions(priority: 200)
        loops.loopCount = 3   // 1 s in all
        let v = try e.play(tone, options: loops)
        try TestSignals.renderGameFrames(e, seconds: 0.3)
        let blocker = try e.play(tone, options: .init(loop: true, priority: 0))
        try TestSignals.renderGameFrames(e, seconds: 0.3)
        XCTAssertEqual(v.status, .virtual)
        blocker.stop()
        try TestSignals.renderGameFrames(e, seconds: 0.3)
        XCTAssertEqual(v.status, .real, "back on a source, in its third pass")
        try TestSignals.renderGameFrames(e, seconds: 0.2)
        XCTAssertFalse(v.isPlaying, "ended after 1 s of passes")
    }

    /// A refused play does not move the selection on: a sequence under a cooldown still plays
    /// every clip in turn; and a play that fails (an unknown bus) steals nothing.
    func testRefusedOrFailedPlaysTakeNothing() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let low = try e.loadClip(TestSignals.sine(frequency: 400, amplitude: 0.2, seconds: 0.05), name: "low")
        let high = try e.loadClip(TestSignals.sine(frequency: 1_200, amplitude: 0.2, seconds: 0.05), name: "high")
        let s = try e.makeSound(SoundDefinition(clips: [low, high], selection: .sequence, cooldown: 0.03))
        var heard: [Double] = []
        for _ in 0..<8 {   // a play every 20 ms: every other one is refused
            if try e.play(s).status != .refused {
                let out = MusicRender.left(try TestSignals.renderGameFrames(e, seconds: 0.02))
                heard.append(ToneMeasure.frequency(Array(out[48..<960]), sampleRate: 48_000))
            } else {
                try TestSignals.renderGameFrames(e, seconds: 0.02)
            }
        }
        XCTAssertEqual(heard.count, 4)
        XCTAssertEqual(heard.map { $0 < 800 }, [true, false, true, false], "low, high, low, high: \(heard)")

        let tone = try e.loadClip(TestSignals.sine(seconds: 1), name: "tone")
        let one = try e.makeSound(SoundDefinition(clips: [tone], limit: .init(count: 1, steal: .oldest), loop: true))
        let first = try e.play(one)
        var bad = SoundPlayOptions()
        bad.bus = Bus("nowhere")
        XCTAssertThrowsError(try e.play(one, options: bad))
        e.update()
        XCTAssertTrue(first.isPlaying, "the failed play stole nothing")
        XCTAssertEqual(e.stats.limitSteals, 0)
    }

    /// A voice with a loop count is measured by the sidechain's detector in every pass, not only
    /// the first.
    func testLoopCountVoiceKeepsItsBusLevelInLaterPasses() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let line = try e.loadClip(TestSignals.sine(frequency: 1_000, amplitude: 0.3, seconds: 0.2), name: "line")
        var o = PlayOptions(bus: .voice)
        o.loopCount = 3   // 0.8 s
        _ = try e.play(line, options: o)
        try TestSignals.renderGameFrames(e, seconds: 0.1)
        let first = try e.level(of: .voice)
        try TestSignals.renderGameFrames(e, seconds: 0.45)   // the third pass
        let third = try e.level(of: .voice)
        XCTAssertGreaterThan(first, -30)
        XCTAssertEqual(third, first, accuracy: 1, "the third pass reads like the first")
        try TestSignals.renderGameFrames(e, seconds: 0.4)
        XCTAssertLessThan(try e.level(of: .voice), -100, "silent once its passes are over")
    }

    /// Removing a sound makes its handle stale; its voices play on; bad definitions are typed errors.
    func testRemoveAndBadDefinitions() throws {
        let e = try TestSignals.loopbackEngine()
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
        let s = try e.makeSound(SoundDefinition(clips: [tone]))
        let v = try e.play(s)
        e.removeSound(s)
        XCTAssertThrowsError(try e.play(s)) { XCTAssertEqual($0 as? EarshotError, .soundRemoved) }
        XCTAssertTrue(v.isPlaying)
        XCTAssertEqual(e.instanceCount(of: s), 0)
        let bad: [SoundDefinition] = [
            SoundDefinition(clips: []),
            SoundDefinition(clips: [tone, tone], weights: [1]),
            SoundDefinition(clips: [tone, tone], weights: [0, 0]),
            SoundDefinition(clips: [tone, tone], avoidRepeat: 2),
            SoundDefinition(clips: [tone, tone], selection: .sequence, avoidRepeat: 1),
            SoundDefinition(clips: [tone], pitchVariation: .nan),
            SoundDefinition(clips: [tone], gainVariation: -1),
            SoundDefinition(clips: [tone], limit: .init(count: 0)),
            SoundDefinition(clips: [tone], limit: .init(count: 2, perEmitter: 3)),
            SoundDefinition(clips: [tone], cooldown: .infinity),
            SoundDefinition(clips: [tone], bus: Bus("nowhere")),
            SoundDefinition(clips: [tone], name: String(repeating: "n", count: SoundDefinition.maxNameBytes + 1)),
        ]
        for d in bad {
            XCTAssertThrowsError(try e.makeSound(d), "\(d)") { error in
                guard case .invalidArgument = error as? EarshotError else { return XCTFail("\(error)") }
            }
        }
        e.shutdown()
        XCTAssertThrowsError(try e.play(s))
        XCTAssertEqual(e.instanceCount(of: s), 0)
        e.removeSound(s)   // safe after shutdown
    }

    /// A sound's name is what its voices' events carry (and what the monitor shows); without
    /// one, the first clip's file name and how many more it picks from.
    func testASoundIsNamed() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.05), name: "sounds/tone.wav")
        let named = try e.makeSound(SoundDefinition(clips: [tone, tone], name: "car"))
        XCTAssertEqual(named.definition.name, "car")
        XCTAssertEqual(MonitorNames.name(of: named), "car")
        let unnamed = try e.makeSound(SoundDefinition(clips: [tone, tone, tone]))
        XCTAssertEqual(MonitorNames.name(of: unnamed), "tone.wav+2")
        _ = try e.makeSound(SoundDefinition(clips: [tone], name: String(repeating: "é", count: SoundDefinition.maxNameBytes / 2)))
    }

    /// Onsets: rises from silence (10 ms windows) in a signal.
    private func onsets(_ x: [Float]) -> Int {
        var count = 0, wasOn = false
        for w in stride(from: 0, to: x.count - 480, by: 480) {
            let on = Level.rms(x, w..<(w + 480)) > 0.01
            if on, !wasOn { count += 1 }
            wasOn = on
        }
        return count
    }
}
