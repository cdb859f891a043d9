import EarshotTestSupport
import Foundation
import XCTest

/// `earshot info BANK` lists everything a bank defines — music tracks and sets (states,
/// transitions), a layered sound's layers and their clips — and its problems each once, all of
/// them (issue 35, items 4 and 20), run as a process.
final class BankInfoTests: XCTestCase {
    static let assets = CLIRunner.packageRoot.appendingPathComponent("Assets").path

    func bank(_ f: BankFixture) throws -> String {
        let a = Self.assets
        return try f.write("game.yaml", """
            parameters:
              rpm: { range: [0, 8000], default: 800 }
            clips:
              hum: audio/a440.wav
              k1: audio/k1.wav
            sounds:
              car:
                loop: true
                pitch: { parameter: rpm, curve: [[800, 1], [6000, 1.8]] }
                layers:
                  - { clip: hum, gain: { parameter: rpm, curve: [[800, 0], [5000, -24]] } }
                  - { clip: k1, pitch: 2, gain: -3 }
              blip: { clips: [k1] }
            music:
              theme: { file: \(a)/Music/theme.ogg, loops: -1 }
              level:
                bpm: 120
                states:
                  explore: { file: \(a)/Music/theme.ogg }
                  combat:
                    layers:
                      drums: { file: \(a)/Music/drums.ogg }
                      bass: { file: \(a)/Music/bass.ogg, gain: 0 }
                transitions:
                  - { from: explore, to: combat, at: nextBar, fade: 0.5 }
                stingers:
                  hit: { file: \(a)/Sounds/coin.wav }
            """)
    }

    func testInfoListsMusicSetsTracksAndTheLayersOfALayeredSound() throws {
        let f = try BankFixture("info")
        defer { f.remove() }
        let path = try bank(f)
        let text = try CLIRunner.run("earshot", ["info", path])
        XCTAssertEqual(text.status, 0, text.stderr)
        for line in ["  car: 2 layers [hum (gain by rpm (800 → 0, 5000 → -24)), k1 (gain -3 dB, pitch ×2)], pitch by rpm (800 → 1, 6000 → 1.8), bus sfx, priority 128, loop",
                     "  blip: 1 clip [k1], random",
                     "music:     2 (theme, level)",
                     "  theme: track theme.ogg, loops until stopped, bus music",
                     "music sets: 1", "  level (bus music):",
                     "    state explore: track theme.ogg, 120 bpm, 4 beats a bar",
                     "    state combat: layers drums drums.ogg, bass bass.ogg gain 0, 120 bpm",
                     "    transition explore → combat at nextBar, fade 0.5 s equalPower",
                     "    stingers: hit"] {
            XCTAssertTrue(text.stdout.contains(line), "\(line)\n\(text.stdout)")
        }
        XCTAssertFalse(text.stdout.contains("0 clips"), text.stdout)

        let json = try CLIRunner.run("earshot", ["info", "--json", path])
        XCTAssertEqual(json.status, 0, json.stderr)
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(o["music"] as? [String], ["theme", "level"])
        let tracks = try XCTUnwrap(o["musicTracks"] as? [[String: Any]])
        XCTAssertEqual(tracks.first?["id"] as? String, "theme")
        XCTAssertEqual(tracks.first?["loops"] as? Int, -1)
        let sets = try XCTUnwrap(o["musicSets"] as? [[String: Any]])
        XCTAssertEqual(sets.count, 1)
        let states = try XCTUnwrap(sets.first?["states"] as? [[String: Any]])
        XCTAssertEqual(states.map { $0["name"] as? String }, ["explore", "combat"])
        XCTAssertEqual(states.last?["layers"] as? [String], ["drums", "bass"])
        XCTAssertEqual((sets.first?["transitions"] as? [[String: Any]])?.first?["to"] as? String, "combat")
        XCTAssertEqual(sets.first?["stingers"] as? [String], ["hit"])
        let sounds = try XCTUnwrap(o["sounds"] as? [[String: Any]])
        let car = try XCTUnwrap(sounds.first { $0["id"] as? String == "car" })
        XCTAssertEqual(car["clips"] as? [String], ["hum", "k1"], "a layered sound's clips are its layers'")
        let layers = try XCTUnwrap(car["layers"] as? [[String: Any]])
        XCTAssertEqual(layers.map { $0["clip"] as? String }, ["hum", "k1"])
        XCTAssertEqual(layers.last?["pitch"] as? Double, 2)
        XCTAssertEqual(layers.last?["gainDB"] as? Double, -3)
        let curve = try XCTUnwrap((layers.first?["curves"] as? [[String: Any]])?.first)
        XCTAssertEqual(curve["parameter"] as? String, "rpm")
        XCTAssertEqual(curve["points"] as? [[Double]], [[800, 0], [5000, -24]])
        XCTAssertEqual(((car["curves"] as? [[String: Any]])?.first)?["property"] as? String, "pitch")
    }

    /// Three problems in a bank: `info` prints each once and all of them, as `validate` does.
    func testInfoPrintsEveryProblemOnce() throws {
        let f = try BankFixture("info-problems")
        defer { f.remove() }
        let path = try f.write("bad.yaml", """
            clips: { step: audio/k1.wav }
            sounds:
              a: { clips: [step], gain: 99 }
              b: { clips: [nope] }
              c: { clips: [step], cooldown: -1 }
            """)
        let info = try CLIRunner.run("earshot", ["info", path])
        let validate = try CLIRunner.run("earshot", ["validate", path])
        XCTAssertEqual(info.status, 1)
        let lines = info.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, info.stderr)
        XCTAssertEqual(Set(lines).count, 3, "each once: \(info.stderr)")
        for (line, key) in zip(lines, ["sounds.a.gain", "sounds.b.clips", "sounds.c.cooldown"]) {
            XCTAssertTrue(line.contains(key), "\(key): \(line)")
        }
        XCTAssertEqual(info.stderr, validate.stderr, "info says what validate says")
    }
}
