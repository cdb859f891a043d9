import Earshot
import EarshotBanks
import EarshotMeasure
import EarshotTestSupport
import XCTest

/// A bank's music tracks and reverb zones: loaded and placed by the game, changed where they are
/// by a reload, taken away by unload.
final class BankMusicAndZoneTests: XCTestCase {
    static func bank(volume: String, fade: String) -> String {
        """
        music:
          theme: { file: audio/a440.wav, volume: \(volume), loops: -1 }
        zones:
          hall: { reverb: hallway, box: { center: [0, 0, 0], size: [10, 4, 10] }, fade: \(fade) }
        """
    }

    func testMusicAndZonesFollowTheBank() throws {
        let f = try BankFixture("music")
        defer { f.remove() }
        let path = try f.write("m.yaml", Self.bank(volume: "1", fade: "2"))
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine)
        let theme = try bank.music("theme")
        XCTAssertTrue(theme === (try bank.music("theme")), "the same track at every call")
        XCTAssertEqual(theme.numberOfLoops, -1)
        try theme.play()
        let loud = Level.rms(try BankFixture.frames(engine, 12), from: 4_800)
        XCTAssertGreaterThan(loud, 0.1)
        try engine.setReverbZones([try bank.zone("hall")])
        // The designer halves the theme's volume and shortens the zone's fade.
        try f.write("m.yaml", Self.bank(volume: "0.5", fade: "0.5"))
        XCTAssertEqual(try bank.reload(), BankChanges(changed: ["music.theme", "zones.hall"]))
        XCTAssertEqual(theme.volume, 0.5)
        XCTAssertEqual(engine.reverbZones.map(\.fade), [0.5], "the zone changed where the game put it")
        _ = try BankFixture.frames(engine, 30)   // the track's volume change settles
        let half = Level.rms(try BankFixture.frames(engine, 12), from: 4_800)
        XCTAssertEqual(Level.dB(half, over: loud), -6, accuracy: 0.5)
        bank.unload()
        XCTAssertFalse(theme.isPlaying, "unload stops the bank's tracks")
        XCTAssertEqual(engine.reverbZones.count, 0, "and takes its zones out of the engine's")
    }

    /// A track's `loop:` (issue 36 item 4) reaches the game's track, and a reload moves it.
    func testATracksLoopRegionFollowsTheBank() throws {
        let f = try BankFixture("loop")
        defer { f.remove() }
        func yaml(_ end: String) -> String { "music:\n  song: { file: audio/a440.wav, cues: { body: 0.05 }, loop: { start: body, end: \(end) } }\n" }
        let path = try f.write("m.yaml", yaml("0.2"))
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine)
        let song = try bank.music("song")
        let rate = Double(song.sampleRate)
        XCTAssertEqual(song.numberOfLoops, -1, "a loop region loops until stopped")
        XCTAssertEqual(song.loopRegion, Int((0.05 * rate).rounded())..<Int((0.2 * rate).rounded()))
        try f.write("m.yaml", yaml("0.15"))
        XCTAssertEqual(try bank.reload(), BankChanges(changed: ["music.song"]))
        XCTAssertEqual(song.loopRegion, Int((0.05 * rate).rounded())..<Int((0.15 * rate).rounded()))
    }
}
