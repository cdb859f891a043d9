import Earshot
@testable import EarshotBanks
import EarshotMeasure
import EarshotScenes
import Foundation
import XCTest

/// Live reload's edges (issue 35, item 18): a music track whose file changes, a bank folder
/// deleted and made again, a bank that is a symbolic link, an emptied file, and a watch that
/// must stop promptly whatever its reload is doing.
extension BankReloadTests {
    /// Every event the bank sends from now on, collected by a task of its own.
    final class EventLog: @unchecked Sendable {
        // @unchecked Sendable: `events` is guarded by `lock`.
        private let lock = NSLock()
        private var events: [BankEvent] = []
        private var task: Task<Void, Never>?

        init(_ bank: SoundBank) {
            let stream = bank.events
            task = Task { [weak self] in
                for await e in stream {
                    guard let self else { return }
                    self.append(e)
                }
            }
        }

        private func append(_ e: BankEvent) { lock.withLock { events.append(e) } }

        var all: [BankEvent] { lock.withLock { events } }

        /// Waits (at most `seconds`) until an event matches.
        func wait(seconds: Double = 5, _ match: (BankEvent) -> Bool) -> BankEvent? {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if let e = all.first(where: match) { return e }
                usleep(10_000)
            }
            return nil
        }

        deinit { task?.cancel() }
    }

    private static func isReload(_ e: BankEvent) -> Bool { if case .reloaded = e { return true } else { return false } }

    static func musicBank(_ file: String, extra: String = "") -> String {
        """
        music:
          theme: { file: \(file), loops: -1 }
        \(extra)
        """
    }

    /// An engine with the bank of one music track, `theme`, playing for 0.1 s.
    private func playingTheme(_ f: BankFixture) throws -> (AudioEngine, SoundBank, MusicTrack) {
        let path = try f.write("m.yaml", Self.musicBank("audio/a440.wav"))
        let engine = try BankFixture.engine()
        let bank = try SoundBank(path: path, engine: engine)
        let theme = try bank.music("theme")
        try theme.play()
        _ = try BankFixture.frames(engine, 6)
        return (engine, bank, theme)
    }

    /// A reload that gives a playing track another file hands it over (0.5 s) to the new file,
    /// which `music(_:)` returns from then on; the old track stops. `unload()` then leaves
    /// silence (the old track used to play on, forgotten, after unload).
    func testAPlayingTracksNewFileTakesOverAndUnloadSilencesIt() throws {
        let f = try BankFixture("trackfile")
        defer { f.remove() }
        let (engine, bank, old) = try playingTheme(f)
        defer { engine.shutdown() }
        try f.write("m.yaml", Self.musicBank("audio/k1.wav"))
        XCTAssertEqual(try bank.reload(), BankChanges(changed: ["music.theme"]))
        let new = try bank.music("theme")
        XCTAssertFalse(new === old, "the new file is a new track")
        XCTAssertTrue(new.path.hasSuffix("k1.wav"), new.path)
        _ = try BankFixture.frames(engine, 45)   // 0.75 s: past the handover
        XCTAssertFalse(old.isPlaying, "the old file stopped")
        XCTAssertTrue(new.isPlaying, "the new file plays")
        let playing = Level.rms(try BankFixture.frames(engine, 6))
        XCTAssertGreaterThan(playing, 0.05)
        bank.unload()
        let after = Level.rms(try BankFixture.frames(engine, 6), from: 800)
        print("track file edit: \(playing) RMS while the new file plays, \(after) after unload")
        XCTAssertLessThan(after, 1e-4, "nothing of the bank's music is heard after unload")
        XCTAssertFalse(old.isPlaying || new.isPlaying)
    }

    /// A playing track taken out of the bank fades out; an unload in the middle of the fade
    /// stops it at once.
    func testARemovedPlayingTrackFadesOutAndUnloadStopsIt() throws {
        let f = try BankFixture("trackgone")
        defer { f.remove() }
        let (engine, bank, theme) = try playingTheme(f)
        defer { engine.shutdown() }
        try f.write("m.yaml", "sounds: {}\n")
        XCTAssertEqual(try bank.reload(), BankChanges(removed: ["music.theme"]))
        _ = try BankFixture.frames(engine, 6)
        XCTAssertTrue(theme.isPlaying, "fading out, not cut")
        bank.unload()
        XCTAssertFalse(theme.isPlaying)
        XCTAssertLessThan(Level.rms(try BankFixture.frames(engine, 6), from: 800), 1e-4)
    }

    /// The bank's folder deleted (an `rm -rf`, a checkout) and made again with the bank in it:
    /// the watch picks it up again and the new file is reloaded (it used to stop, silently).
    func testAWatchedBankFollowsItsFolderDeletedAndMadeAgain() throws {
        let f = try BankFixture("refolder")
        defer { f.remove() }
        let audio = f.path("audio")
        func text(_ gain: String) -> String { Self.bank(gain: gain).replacingOccurrences(of: "audio/", with: audio + "/") }
        let path = try f.write("bank/game.yaml", text("0"))
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine, watch: true)
        defer { bank.unload() }
        let log = EventLog(bank)
        try FileManager.default.removeItem(atPath: f.path("bank"))
        usleep(300_000)   // longer than a look for the folder
        try f.write("bank/game.yaml", text("-6"))
        let reloaded = log.wait(Self.isReload)
        XCTAssertEqual(reloaded, .reloaded(BankChanges(changed: ["sounds.hum"])), "\(log.all)")
        XCTAssertEqual(try bank.sound("hum").definition.gain, Float(pow(10, -6.0 / 20)), accuracy: 1e-4)
        // And it keeps watching the new folder.
        try f.write("bank/game.yaml", text("-12"))
        XCTAssertNotNil(log.wait { $0 == .reloaded(BankChanges(changed: ["sounds.hum"])) && (try? bank.sound("hum").definition.gain) ?? 1 < 0.3 })
    }

    /// A bank that is a symbolic link to a file in another folder: a save of that file reloads
    /// it (only the link's folder was watched), and so does re-pointing the link.
    func testAWatchedBankThatIsASymlinkFollowsItsTarget() throws {
        let f = try BankFixture("symlink")
        defer { f.remove() }
        let audio = f.path("audio")
        func text(_ gain: String) -> String { Self.bank(gain: gain).replacingOccurrences(of: "audio/", with: audio + "/") }
        let real = try f.write("elsewhere/game.yaml", text("0"))
        try FileManager.default.createDirectory(atPath: f.path("game"), withIntermediateDirectories: true)
        let link = f.path("game/bank.yaml")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: link, engine: engine, watch: true)
        defer { bank.unload() }
        let log = EventLog(bank)
        try f.write("elsewhere/game.yaml", text("-6"))   // saved by rename, where the link leads
        XCTAssertEqual(log.wait(Self.isReload), .reloaded(BankChanges(changed: ["sounds.hum"])), "\(log.all)")
        try text("-12").write(toFile: real, atomically: false, encoding: .utf8)   // saved in place
        XCTAssertNotNil(log.wait { _ in log.all.filter(Self.isReload).count >= 2 }, "\(log.all)")
        // The link re-pointed at another file: reloaded, and that file is watched from then on.
        let other = try f.write("third/game.yaml", text("-3"))
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: other)
        XCTAssertNotNil(log.wait { _ in log.all.filter(Self.isReload).count >= 3 }, "\(log.all)")
        try f.write("third/game.yaml", text("-9"))
        XCTAssertNotNil(log.wait { _ in log.all.filter(Self.isReload).count >= 4 }, "\(log.all)")
        XCTAssertEqual(try bank.sound("hum").definition.gain, Float(pow(10, -9.0 / 20)), accuracy: 1e-4)
    }

    /// An emptied bank file is never applied: `reload()` refuses it (every sound and voice kept);
    /// watched, a truncate-then-write is one reload of the written text; a file that stays empty
    /// is reported, as an event, after the retries.
    func testAnEmptiedBankFileIsNotApplied() throws {
        let f = try BankFixture("empty")
        defer { f.remove() }
        let path = try f.write("game.yaml", Self.bank())
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine, watch: true)
        defer { bank.unload() }
        let hum = try XCTUnwrap(try bank.play("hum"))
        let log = EventLog(bank)

        // Truncated, then written 150 ms later (three settle times): one reload, of the new text.
        try "".write(toFile: path, atomically: false, encoding: .utf8)
        usleep(150_000)
        XCTAssertEqual(bank.soundNames, ["beep", "hum"], "nothing removed meanwhile")
        try Self.bank(gain: "-6").write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertEqual(log.wait(Self.isReload), .reloaded(BankChanges(changed: ["sounds.hum"])), "\(log.all)")
        XCTAssertTrue(log.all.allSatisfy(Self.isReload), "no event for the half-written file: \(log.all)")
        XCTAssertEqual(hum.status, .real, "its voice plays on")

        // Emptied for good: reported (once the retries are over), the bank as it was.
        try "".write(toFile: path, atomically: false, encoding: .utf8)
        let rejected = log.wait { if case .rejected = $0 { return true } else { return false } }
        XCTAssertTrue(rejected?.description.contains("the file is empty") ?? false, "\(log.all)")
        XCTAssertEqual(bank.soundNames, ["beep", "hum"])
        XCTAssertEqual(hum.status, .real, "its voice still plays")

        // reload() says so too.
        XCTAssertThrowsError(try bank.reload()) { error in
            XCTAssertTrue("\(error)".contains("\(path)") && "\(error)".contains("empty"), "\(error)")
        }
        XCTAssertEqual(bank.soundNames, ["beep", "hum"])
    }

    /// `stop()` returns within its bound (1 s) even while the watch's reload is stuck (here: a
    /// reload that takes 3 s), and the thread ends by itself afterwards; 30 watches started and
    /// stopped during saves each stop within the bound too (once in 36 stress runs a shutdown
    /// took over 10 s here).
    func testStoppingTheWatchIsBoundedWhateverItsReloadDoes() throws {
        let f = try BankFixture("stop")
        defer { f.remove() }
        let path = try f.write("game.yaml", Self.bank())
        let running = DispatchSemaphore(value: 0)
        let watcher = try BankWatcher(files: [path]) { _ in
            running.signal()
            usleep(3_000_000)
            return true
        }
        try f.write("game.yaml", Self.bank(gain: "-6"))
        XCTAssertEqual(running.wait(timeout: .now() + 5), .success, "the reload started")
        let t0 = Date()
        watcher.stop()
        let stopped = Date().timeIntervalSince(t0)
        XCTAssertLessThan(stopped, BankWatcher.stopWait + 0.3, "stop() is bounded")
        // The thread ends once its reload returns.
        let deadline = Date().addingTimeInterval(5)
        while Self.countWatchThreads() > 0 && Date() < deadline { usleep(20_000) }
        XCTAssertEqual(Self.countWatchThreads(), 0, "the thread ended by itself")

        var longest = 0.0
        for i in 0..<30 {
            let w = try BankWatcher(files: [path]) { _ in true }
            try f.write("game.yaml", Self.bank(gain: i % 2 == 0 ? "-3" : "0"))
            usleep(UInt32(i % 5) * 15_000)
            let s = Date()
            w.stop()
            longest = max(longest, Date().timeIntervalSince(s))
        }
        print("bank watch: stop() during a stuck reload \(stopped) s; the longest of 30 stops during saves \(longest) s")
        XCTAssertLessThan(longest, BankWatcher.stopWait + 0.3)
        XCTAssertEqual(Self.watchThreads(0), 0)
    }
}
