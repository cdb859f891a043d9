import Earshot
import EarshotScenes
import EarshotTestSupport
import Foundation
import XCTest

/// Issue 23 item 8 in scenes: `bus:` and `emitter:` on music entries, rendered and measured, and
/// their validation.
final class SceneMusicRoutingTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func tone(_ name: String, frequency: Int, channels: Int = 1) throws -> String {
        let path = tmp.appendingPathComponent(name).path
        try SoxTone.write(to: path, frequency: frequency, amplitude: 0.3, seconds: 1, channels: channels)
        return path
    }

    private func render(_ yaml: String) throws -> RenderedAudio {
        let scene = try Scene.load(path: try SceneFixtures.write(yaml, in: tmp))
        let out = tmp.appendingPathComponent("rendered.wav").path
        _ = try SceneRenderer(scene: scene).render(to: out, format: .f32)
        return try RenderedAudio(path: out)
    }

    private func problems(_ yaml: String) throws -> String {
        let path = try SceneFixtures.write(yaml, in: tmp)
        guard case .failure(let p) = Scene.check(path: path) else { XCTFail("accepted: \(yaml)"); return "" }
        return p.description
    }

    /// A spoken line on the voice bus following a radio that moves from +2 m to −2 m, under a
    /// `pause all but voice`-like mix: the music bus at −∞, the line heard, right then left.
    func testAMusicEntryOnTheVoiceBusFollowsItsEmitter() throws {
        let line = try tone("line.wav", frequency: 500)
        let audio = try render("""
            duration: 2
            music:
              line: { file: \(line), bus: voice, emitter: radio, loops: -1 }
            emitters:
              radio: { path: { waypoints: [[0, 2, 0, 0], [0.9, 2, 0, 0], [1.1, -2, 0, 0], [2, -2, 0, 0]] } }
            buses:
              music: { gain: -120 }
            events:
              - { at: 0, music: line, action: play }
            """)
        let right = (l: audio.rms(0, 0.3, 0.8), r: audio.rms(1, 0.3, 0.8))
        let left = (l: audio.rms(0, 1.3, 1.8), r: audio.rms(1, 1.3, 1.8))
        print("SceneMusicRoutingTests: at +2 m L \(right.l) R \(right.r); at −2 m L \(left.l) R \(left.r)")
        XCTAssertGreaterThan(right.r, 0.05, "the line plays on the voice bus, not the silenced music bus")
        XCTAssertLessThan(right.l, right.r * 0.1)
        XCTAssertGreaterThan(left.l, 0.05)
        XCTAssertLessThan(left.r, left.l * 0.1, "it moved with the emitter")
    }

    func testMusicBusAndEmitterKeysAreValidated() throws {
        let line = try tone("line.wav", frequency: 500)
        let bus = try problems("""
            duration: 1
            music:
              line: { file: \(line), bus: voise }
            """)
        XCTAssertTrue(bus.contains("music.line.bus: no bus named \"voise\" (did you mean 'voice'?)"), bus)
        let emitter = try problems("""
            duration: 1
            music:
              line: { file: \(line), emitter: radoi }
            emitters:
              radio: { position: [1, 0, 0] }
            """)
        XCTAssertTrue(emitter.contains("music.line.emitter: no emitter with id \"radoi\""), emitter)
        let badBus = try problems("""
            duration: 1
            buses:
              \(String(repeating: "b", count: 65)): { gain: -6 }
              "tab\\there": { gain: -6 }
            """)
        XCTAssertTrue(badBus.contains("bus name of 65 UTF-8 bytes is longer than 64"), badBus)
        XCTAssertTrue(badBus.contains("holds a character that does not print (U+9)"), badBus)
        // An emitter only a track follows needs no clip; any other still does.
        let noClip = try problems("""
            duration: 1
            emitters:
              radio: { position: [1, 0, 0] }
            """)
        XCTAssertTrue(noClip.contains("emitters.radio.clip: required key is missing"), noClip)
    }

    func testAStereoTrackCannotFollowAnEmitter() throws {
        let stereo = try tone("stereo.wav", frequency: 500, channels: 2)
        XCTAssertThrowsError(try render("""
            duration: 1
            music:
              bed: { file: \(stereo), emitter: radio }
            emitters:
              radio: { position: [1, 0, 0] }
            """)) { error in
            guard case .invalidArgument(let why) = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertTrue(why.contains("only a mono track can follow an emitter"), why)
        }
    }
}
