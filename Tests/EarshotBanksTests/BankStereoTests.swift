import Earshot
import EarshotBanks
import EarshotMeasure
import EarshotTestSupport
import Foundation
import XCTest

/// A bank's stereo clip keeps its image where it plays without a position, and its sounds'
/// `spatial:` and `spread:` apply, as in scenes and the library.
final class BankStereoTests: XCTestCase {
    func testABanksStereoSoundKeepsItsImage() throws {
        let f = try BankFixture("stereo")
        defer { f.remove() }
        let sox = Process()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        sox.arguments = ["-D", "-n", "-r", "48000", "-c", "2", "-b", "16", f.path("audio/left.wav"),
                         "synth", "0.5", "sine", "500", "vol", "0.5", "remix", "1", "0"]
        try sox.run()
        sox.waitUntilExit()
        XCTAssertEqual(sox.terminationStatus, 0)
        let path = try f.write("game.yaml", """
            clips:
              st: audio/left.wav
            sounds:
              amb: { clips: [st] }
              ui: { clips: [st], spatial: 2d }
            """)
        func levels(_ name: String, _ options: SoundPlayOptions) throws -> [Double] {
            let engine = try BankFixture.engine()
            defer { engine.shutdown() }
            let bank = try SoundBank(path: path, engine: engine)
            _ = try bank.play(name, options: options)
            let out = try engine.render(frames: 4_800)
            return Level.rms(Array(out[960...]), channels: 2).map { Level.dB($0) }
        }
        let plain = try levels("amb", SoundPlayOptions())
        XCTAssertGreaterThanOrEqual(plain[0] - plain[1], 60, "no position: the image: \(plain)")
        let ui = try levels("ui", SoundPlayOptions(position: Vector3(3, 0, 0)))
        XCTAssertGreaterThanOrEqual(ui[0] - ui[1], 60, "2d: the image wherever it plays: \(ui)")
        let placed = try levels("amb", SoundPlayOptions(position: Vector3(3, 0, 0)))
        XCTAssertGreaterThan(placed[1] - placed[0], 20, "at a position: folded and placed right: \(placed)")
    }
}
