import Earshot
import EarshotBanks
import EarshotMeasure
import EarshotScenes
import XCTest

/// Live tuning: a bank edited while its sounds play, reloaded, measured on the loopback output —
/// levels, the loop's phase against an engine that was not edited, limits, snapshots — and edits
/// that are refused.
final class BankReloadTests: XCTestCase {
    static func bank(gain: String = "0", bus: String = "0", limit: Int = 1, extra: String = "") -> String {
        """
        clips:
          tone: audio/a440.wav
          k1: audio/k1.wav
        buses:
          sfx: { gain: \(bus) }
        sounds:
          hum:
            clips: [tone]
            loop: true
            gain: \(gain)
          beep: { clips: [k1], limit: { count: \(limit), steal: refuse } }
        snapshots:
          pause: { buses: { sfx: { gain: -6 } } }
        \(extra)
        """
    }

    /// A game frame at 60 Hz, 48 kHz: the engine renders one at a time, as a game on loopback
    /// does (OpenAL Soft ramps a gain change over the first mix after it: within the frame).
    static let frame = 800

    /// Plays the hum in an engine on `text`, renders `lead` frames, edits the bank to `edited`
    /// (nil: no edit), reloads and renders `after` more; also returns what the same bank renders
    /// unedited over the same frames.
    func playEditRender(_ f: BankFixture, _ text: String, edited: String?, lead: Int = 24_000 + 1_237, after: Int = 12 * frame,
                        setup: (SoundBank, AudioEngine) throws -> Void = { _, _ in }) throws -> (edited: [Float], reference: [Float], error: BankError?) {
        var outs: [[Float]] = []
        var failure: BankError?
        for edit in [edited, nil] {
            let path = try f.write("game.yaml", text)
            let engine = try BankFixture.engine()
            defer { engine.shutdown() }
            let bank = try SoundBank(path: path, engine: engine)
            defer { bank.unload() }
            _ = try XCTUnwrap(try bank.play("hum"))
            try setup(bank, engine)
            _ = try engine.render(frames: lead)
            if let edit {
                try f.write("game.yaml", edit)
                do { _ = try bank.reload() } catch { failure = error }
            }
            var out: [Float] = []
            for _ in 0..<(after / Self.frame) {
                engine.update(deltaTime: Double(Self.frame) / 48_000)
                out += try engine.render(frames: Self.frame)
            }
            outs.append(out)
        }
        return (outs[0], outs[1], failure)
    }

    func testAGainEditTakesAPlayingLoopDown12dBWithinOneFrameWithoutRestartingIt() throws {
        let f = try BankFixture("gain")
        defer { f.remove() }
        let r = try playEditRender(f, Self.bank(gain: "0"), edited: Self.bank(gain: "-12"))
        XCTAssertNil(r.error)
        // Within the first frame after reload() the level goes down (OpenAL ramps a gain change
        // linearly over the mix after it, that frame): from the next frame on it is 12 dB down.
        let first = Level.dB(Level.rms(r.edited, from: 0, to: Self.frame), over: Level.rms(r.reference, from: 0, to: Self.frame))
        XCTAssertLessThan(first, -3, "the frame of the reload is on its way down")
        let next = Level.dB(Level.rms(r.edited, from: Self.frame, to: 2 * Self.frame), over: Level.rms(r.reference, from: Self.frame, to: 2 * Self.frame))
        XCTAssertEqual(next, -12, accuracy: 0.5)
        print("gain edit: first frame \(first) dB, the next \(next) dB")
        let later = Level.dB(Level.rms(r.edited, from: Self.frame), over: Level.rms(r.reference, from: Self.frame))
        XCTAssertEqual(later, -12, accuracy: 0.5)
        // The loop runs on: sample for sample the unedited engine's output, scaled. A restart
        // (the loop from its start, 0.51 s in: 1.237 periods of 440 Hz off) or a gap would differ
        // by up to the tone's amplitude.
        let g = Float(pow(10, -12.0 / 20))
        var worst: Float = 0
        for i in Self.frame..<(r.edited.count / 2) { worst = max(worst, abs(r.edited[i * 2] - r.reference[i * 2] * g)) }
        XCTAssertLessThan(worst, 0.002, "the edited loop is the unedited one at −12 dB")
        // And no silent stretch anywhere after the edit.
        for block in stride(from: 0, to: r.edited.count / 2 - 96, by: 96) {
            XCTAssertGreaterThan(Level.rms(r.edited, from: block, to: block + 96), 0.04, "a gap at frame \(block)")
        }
    }

    func testABusGainEditTakesItsPlayingVoicesDownWithinOneFrame() throws {
        let f = try BankFixture("bus")
        defer { f.remove() }
        let r = try playEditRender(f, Self.bank(bus: "0"), edited: Self.bank(bus: "-12"))
        let drop = Level.dB(Level.rms(r.edited, from: Self.frame, to: 2 * Self.frame), over: Level.rms(r.reference, from: Self.frame, to: 2 * Self.frame))
        XCTAssertEqual(drop, -12, accuracy: 0.5)
    }

    func testABrokenEditChangesNothingAndIsReportedWithItsLine() async throws {
        let f = try BankFixture("broken")
        defer { f.remove() }
        let path = f.path("game.yaml")
        let broken = Self.bank(gain: "-300")   // line 10: `    gain: -300`
        let r = try playEditRender(f, Self.bank(gain: "0"), edited: broken)
        let error = try XCTUnwrap(r.error)
        XCTAssertTrue(error.description.hasPrefix("\(path):10:11: sounds.hum.gain: -300 is out of range"), error.description)
        // Nothing changed: the level is the unedited one's, sample for sample.
        var worst: Float = 0
        for i in 0..<(r.edited.count / 2) { worst = max(worst, abs(r.edited[i * 2] - r.reference[i * 2])) }
        XCTAssertEqual(worst, 0)
        // YAML that does not parse: the same, with the line of the syntax error.
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        try f.write("game.yaml", Self.bank())
        let bank = try SoundBank(path: path, engine: engine)
        let events = bank.events
        try f.write("game.yaml", Self.bank().replacingOccurrences(of: "loop: true", with: "loop: [true"))
        XCTAssertThrowsError(try bank.reload()) { error in
            // libyaml finds the unclosed list where the next line starts.
            XCTAssertTrue("\(error)".hasPrefix("\(path):10:9: YAML syntax"), "\(error)")
        }
        XCTAssertEqual(bank.soundNames, ["beep", "hum"], "the bank is as it was")
        bank.unload()
        var seen: [String] = []
        for await e in events { seen.append(e.description) }
        XCTAssertEqual(seen.count, 1)
        XCTAssertTrue(seen.first?.hasPrefix("\(path):10:9: YAML syntax") ?? false, "\(seen)")
    }

    func testLimitsCooldownsAndAddedSoundsChangeLive() throws {
        let f = try BankFixture("limits")
        defer { f.remove() }
        let path = try f.write("game.yaml", Self.bank(limit: 1))
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine)
        XCTAssertNotNil(try bank.play("beep"))
        XCTAssertNil(try bank.play("beep"), "one at a time")
        XCTAssertThrowsError(try bank.play("chirp"))
        try f.write("game.yaml", """
            clips: { tone: audio/a440.wav, k1: audio/k1.wav }
            sounds:
              hum: { clips: [tone], loop: true }
              beep: { clips: [k1], limit: { count: 3, steal: refuse } }
              chirp: { clips: [k1], cooldown: 10 }
            """)
        let changes = try bank.reload()
        XCTAssertEqual(changes.added, ["sounds.chirp"])
        XCTAssertTrue(changes.changed.contains("sounds.beep"))
        XCTAssertEqual(changes.removed, ["buses.sfx", "snapshots.pause"])
        // The limit counts the voice playing since before the edit: two more, not three.
        XCTAssertNotNil(try bank.play("beep"))
        XCTAssertNotNil(try bank.play("beep"))
        XCTAssertNil(try bank.play("beep"))
        XCTAssertEqual(engine.instanceCount(of: try bank.sound("beep")), 3)
        // The added sound plays, with its cooldown.
        XCTAssertNotNil(try bank.play("chirp"))
        XCTAssertNil(try bank.play("chirp"))
        XCTAssertThrowsError(try bank.snapshot("pause"))
    }

    func testAnActiveSnapshotTakesItsEditAtItsWeight() throws {
        let f = try BankFixture("snapshot")
        defer { f.remove() }
        let deeper = Self.bank().replacingOccurrences(of: "sfx: { gain: -6 }", with: "sfx: { gain: -18 }")
        let r = try playEditRender(f, Self.bank(), edited: deeper) { bank, engine in
            try engine.begin(try bank.snapshot("pause"), fade: 0, intensity: 0.5)   // half: −3 dB
        }
        // At half weight, −18 dB is −9: 6 dB below the unedited −3, from the first frame on.
        let drop = Level.dB(Level.rms(r.edited, from: Self.frame, to: 2 * Self.frame), over: Level.rms(r.reference, from: Self.frame, to: 2 * Self.frame))
        XCTAssertEqual(drop, -6, accuracy: 0.5)
    }

    func testSavingTheWatchedFileReloadsIt() async throws {
        let f = try BankFixture("watch")
        defer { f.remove() }
        let path = try f.write("game.yaml", Self.bank(extra: "include: more.yaml"))
        try f.write("more.yaml", "sounds: { extra: { clips: [x] } }\nclips: { x: audio/k1.wav }\n")
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        XCTAssertEqual(Self.watchThreads(0), 0)
        let bank = try SoundBank(path: path, engine: engine, watch: true)
        XCTAssertEqual(Self.watchThreads(1), 1, "one watch thread")
        var events = bank.events.makeAsyncIterator()
        // A save of the bank (by rename, as editors do): one reload.
        try f.write("game.yaml", Self.bank(gain: "-6", extra: "include: more.yaml"))
        let first = await events.next()
        XCTAssertEqual(first, .reloaded(BankChanges(changed: ["sounds.hum"])))
        // A save of an included bank (in place): reloaded too.
        try "sounds: { extra: { clips: [x], cooldown: 1 } }\nclips: { x: audio/k1.wav }\n".write(toFile: f.path("more.yaml"), atomically: false, encoding: .utf8)
        let second = await events.next()
        XCTAssertEqual(second, .reloaded(BankChanges(changed: ["sounds.extra"])))
        // A broken save: reported with its file and line; the bank is as it was.
        try f.write("more.yaml", "sounds: { extra: { clips: [y] } }\nclips: { x: audio/k1.wav }\n")
        let third = await events.next()
        XCTAssertTrue(third?.description.hasPrefix("\(f.path("more.yaml")):1:28: sounds.extra.clips[0]: no clip named \"y\"") ?? false,
                      third?.description ?? "nil")
        XCTAssertEqual(try bank.sound("extra").definition.cooldown, 1)
        bank.unload()
        let end = await events.next()
        XCTAssertNil(end, "the events finish at unload")
        XCTAssertEqual(Self.watchThreads(0), 0, "the watch thread ended")
    }

    /// The process's bank watch threads (by their name, "earshot-bankwat"), waiting up to 1 s
    /// for the count to become `expected` (the kernel lets go of a joined thread's task a
    /// moment after the join returns).
    static func watchThreads(_ expected: Int) -> Int {
        var n = countWatchThreads()
        for _ in 0..<100 where n != expected {
            usleep(10_000)
            n = countWatchThreads()
        }
        return n
    }

    static func countWatchThreads() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?.hasPrefix("earshot-bankwat") ?? false
        }.count
    }
}
