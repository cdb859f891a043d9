@testable import Earshot
import EarshotBanks
import EarshotMeasure
import EarshotScenes
import XCTest

/// Banks loaded into loopback engines: sounds played by name and measured, lookups and their
/// errors, several banks at once, and the memory unload gives back.
final class BankLoadTests: XCTestCase {
    static let bank = """
        clips:
          tone: audio/a440.wav
          beep: audio/k1.wav
        buses:
          steps: { gain: -6 }
        sounds:
          footstep: { clips: [beep], bus: steps, limit: { count: 2, steal: refuse } }
          hum: { clips: [tone], loop: true }
        snapshots:
          pause: { buses: { steps: { gain: -20 } } }
        zones:
          hall: { box: { center: [0, 0, 0], size: [10, 4, 10] }, reverb: hallway }
        """

    func testPlaysByNameWhereTheGameSays() throws {
        let f = try BankFixture("play")
        defer { f.remove() }
        let path = try f.write("game.yaml", Self.bank)
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine)
        let voice = try XCTUnwrap(try bank.play("hum", options: SoundPlayOptions(position: Vector3(1, 0, 0))))
        XCTAssertEqual(voice.status, .real)
        let out = try engine.render(frames: 4800)
        let left = Level.rms(out, channel: 0, from: 480), right = Level.rms(out, channel: 1, from: 480)
        // Hard right (the loopback measures 0.3535 RMS at +1 m for amplitude 0.5); the left is silent.
        XCTAssertEqual(right, 0.3535, accuracy: 0.01)
        XCTAssertLessThan(left, 0.001)
        XCTAssertEqual(bank.soundNames, ["footstep", "hum"])
        XCTAssertEqual(try bank.snapshot("pause").busGains[Bus("steps")], -20)
        XCTAssertEqual(try bank.zone("hall").name, "hall")
        // The bank's bus gain is in force: the steps bus is at −6 dB.
        XCTAssertEqual(Double(try engine.gain(for: Bus("steps"))), pow(10, -6.0 / 20), accuracy: 1e-6)
        // Its limit too: the third play at once is refused (nil).
        XCTAssertNotNil(try bank.play("footstep"))
        XCTAssertNotNil(try bank.play("footstep"))
        XCTAssertNil(try bank.play("footstep"))
    }

    func testAnUnknownNameNamesTheBankFileAndTheNearestName() throws {
        let f = try BankFixture("unknown")
        defer { f.remove() }
        let path = try f.write("game.yaml", Self.bank)
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine)
        XCTAssertThrowsError(try bank.play("footstpe")) { error in
            XCTAssertEqual(error as? BankError, .unknownName(bank: path, kind: "sound", name: "footstpe", nearest: "footstep"))
            XCTAssertEqual("\(error)", "\(path): no sound named \"footstpe\" (the nearest is \"footstep\")")
        }
        XCTAssertThrowsError(try bank.snapshot("paus")) { error in
            XCTAssertEqual(error as? BankError, .unknownName(bank: path, kind: "snapshot", name: "paus", nearest: "pause"))
        }
        // Far from everything: still the nearest one.
        XCTAssertThrowsError(try bank.sound("zzzzzzzz")) { error in
            guard case .unknownName(_, _, _, let nearest)? = error as? BankError else { return XCTFail("\(error)") }
            XCTAssertNotNil(nearest)
        }
        XCTAssertThrowsError(try bank.music("theme")) { error in
            XCTAssertEqual(error as? BankError, .unknownName(bank: path, kind: "music track", name: "theme", nearest: nil))
        }
    }

    func testABadBankIsRefusedWithFileLineAndColumn() throws {
        let f = try BankFixture("bad")
        defer { f.remove() }
        let path = try f.write("game.yaml", """
            clips:
              tone: audio/a440.wav
            sounds:
              hum: { clips: [tone], gain: 40 }
            events:
              - { at: 0, play: hum }
            """)
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        XCTAssertThrowsError(try SoundBank(path: path, engine: engine)) { error in
            guard case .invalid(let problems)? = error as? BankError else { return XCTFail("\(error)") }
            let lines = problems.map(\.description)
            XCTAssertTrue(lines.contains { $0.hasPrefix("\(path):4:31: sounds.hum.gain: 40 is out of range") }, "\(lines)")
            XCTAssertTrue(lines.contains { $0.hasPrefix("\(path):5:1: events: a bank has no events:") }, "\(lines)")
        }
        XCTAssertEqual(engine.stats.clips, 0, "a refused bank leaves nothing loaded")
    }

    func testSeveralBanksAtOnceAndUnloadGivesTheirMemoryBack() throws {
        let f = try BankFixture("several")
        defer { f.remove() }
        let a = try f.write("a.yaml", Self.bank)
        let b = try f.write("b.yaml", """
            clips: { long: audio/a440.wav, short: audio/k1.wav }
            sounds: { footstep: { clips: [long, short] } }
            """)
        let c = try f.write("c.yaml", "clips: { again: audio/a440.wav }\nsounds: { tone: { clips: [again] } }\n")
        // Room for 70,000 bytes of decoded clips: two banks of 33,600, not a third on top.
        var configuration = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000))
        configuration.maxTotalClipBytes = 70_000
        let engine = try AudioEngine(configuration: configuration)
        defer { engine.shutdown() }
        let first = try SoundBank(path: a, engine: engine)
        let second = try SoundBank(path: b, engine: engine)
        // Both banks' footsteps, each its own: a's on its steps bus, b's picking from two clips.
        XCTAssertEqual(try first.sound("footstep").definition.bus, Bus("steps"))
        XCTAssertEqual(try second.sound("footstep").definition.clips.count, 2)
        // 0.25 s and 0.1 s of 48 kHz 16-bit mono: 24,000 + 9,600 bytes a bank.
        XCTAssertEqual(first.clipBytes, 33_600)
        XCTAssertEqual(second.clipBytes, 33_600)
        XCTAssertEqual(engine.stats.clips, 4)
        XCTAssertThrowsError(try SoundBank(path: c, engine: engine), "the budget is full") { error in
            guard case .invalid(let p)? = error as? BankError else { return XCTFail("\(error)") }
            XCTAssertTrue(p[0].description.contains("clips.again: cannot load"), p[0].description)
        }
        XCTAssertEqual(engine.stats.clips, 4, "the refused bank left nothing")
        _ = try first.play("hum")
        first.unload()
        // Its clips are gone from the engine, its voice with them, and their bytes are back in the budget.
        XCTAssertEqual(engine.stats.clips, 2)
        XCTAssertEqual(first.clipBytes, 0)
        XCTAssertFalse(first.isLoaded)
        XCTAssertThrowsError(try first.play("hum")) { XCTAssertEqual($0 as? BankError, .unloaded(bank: a)) }
        _ = try engine.render(frames: 480)
        XCTAssertEqual(engine.activeVoiceCount, 0, "the unloaded bank's loop stopped with its clip")
        let third = try SoundBank(path: c, engine: engine)
        XCTAssertEqual(third.clipBytes, 24_000)
        // The other bank plays on.
        XCTAssertNotNil(try second.play("footstep"))
        XCTAssertTrue(engine.hasAttachedSubsystems.load(ordering: .acquiring), "loaded banks follow the engine's shutdown")
        first.unload()   // idempotent
        second.unload()
        third.unload()
        XCTAssertEqual(engine.stats.clips, 0)
        XCTAssertFalse(engine.hasAttachedSubsystems.load(ordering: .acquiring), "unloaded, they cost the frames nothing")
    }

    func testEventsReachEveryConsumerAndFinishAtUnload() async throws {
        let f = try BankFixture("events")
        defer { f.remove() }
        let path = try f.write("game.yaml", Self.bank)
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine)
        let one = bank.events, two = bank.events
        try f.write("game.yaml", Self.bank.replacingOccurrences(of: "gain: -6", with: "gain: -9"))
        XCTAssertEqual(try bank.reload(), BankChanges(changed: ["buses.steps"]))
        bank.unload()
        var seen: [[String]] = []
        for stream in [one, two] {
            var events: [String] = []
            for await e in stream { events.append(e.description) }   // ends: finished at unload
            seen.append(events)
        }
        XCTAssertEqual(seen, [["reloaded changed buses.steps"], ["reloaded changed buses.steps"]])
        var late = 0
        for await _ in bank.events { late += 1 }
        XCTAssertEqual(late, 0)
    }

    func testShutdownEndsTheBank() async throws {
        let f = try BankFixture("shutdown")
        defer { f.remove() }
        let path = try f.write("game.yaml", Self.bank)
        let engine = try BankFixture.engine()
        let bank = try SoundBank(path: path, engine: engine, watch: true)
        let events = bank.events
        XCTAssertEqual(BankReloadTests.watchThreads(1), 1)
        engine.shutdown()
        XCTAssertEqual(BankReloadTests.watchThreads(0), 0, "the watch thread ends with the engine")
        for await _ in events {}
        XCTAssertFalse(bank.isLoaded)
        XCTAssertThrowsError(try bank.play("hum")) { XCTAssertEqual($0 as? BankError, .unloaded(bank: path)) }
        XCTAssertThrowsError(try bank.reload()) { XCTAssertEqual($0 as? BankError, .unloaded(bank: path)) }
        bank.unload()
        // A bank loaded into a shut-down engine: the engine's refusal, not a problem of the file.
        XCTAssertThrowsError(try SoundBank(path: path, engine: engine)) { XCTAssertEqual($0 as? BankError, .engine(.engineShutDown)) }
    }
}

/// Plays from several threads while the bank reloads and the engine renders: every call returns
/// (a voice, nil or a typed error), nothing traps, and the bank ends as the file says.
final class BankConcurrencyTests: XCTestCase {
    func testPlaysFromManyThreadsWhileItReloads() throws {
        let f = try BankFixture("threads")
        defer { f.remove() }
        let path = try f.write("game.yaml", BankLoadTests.bank)
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine)
        let plays = DispatchGroup()
        let errors = NSLock()
        nonisolated(unsafe) var unexpected: [String] = []
        for t in 0..<4 {
            DispatchQueue.global().async(group: plays) {
                for i in 0..<200 {
                    do { _ = try bank.play(i % 2 == 0 ? "footstep" : "hum", options: SoundPlayOptions(pan: Float(t) / 4)) } catch {
                        errors.lock(); unexpected.append("\(error)"); errors.unlock()
                    }
                }
            }
        }
        for k in 0..<20 {
            try f.write("game.yaml", BankLoadTests.bank.replacingOccurrences(of: "gain: -6", with: "gain: -\(6 + k % 3)"))
            _ = try bank.reload()
            _ = try engine.render(frames: 480)
        }
        plays.wait()
        XCTAssertEqual(unexpected, [])
        XCTAssertEqual(bank.soundNames, ["footstep", "hum"])
        bank.unload()
        XCTAssertEqual(engine.stats.clips, 0)
    }
}
