import Earshot
import EarshotScenes
import EarshotTestSupport
import Foundation
import XCTest

/// Issue 35 item 2: a music set an included bank defines is the scene's own — its state,
/// stinger, layer and play events validate as for a set of the scene, and render (validate ok
/// ⇒ render ok; `{ music: score, action: play }` used to validate as a track's and trap in
/// render). Issue 36 item 3: a rule's `fade:` in scenes, both sides or `{ out:, in: }`.
final class SceneIncludedMusicSetTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func tone(_ name: String, frequency: Int, seconds: Double = 6) throws -> String {
        let path = tmp.appendingPathComponent(name).path
        try SoxTone.write(to: path, frequency: frequency, amplitude: 0.3, seconds: seconds)
        return path
    }

    private func writeBank(fade: String = "") throws {
        let explore = try tone("explore.wav", frequency: 500)
        let combat = try tone("combat.wav", frequency: 1_000)
        _ = try SceneFixtures.write("""
            music:
              score:
                bpm: 120
                states:
                  explore: { file: \(explore) }
                  combat: { layers: { drums: { file: \(combat) } } }
                transitions:
                  - { from: explore, to: combat, at: nextBar\(fade) }
                stingers:
                  hit: { file: \(combat) }
            """, name: "bank.yaml", in: tmp)
    }

    func testAnIncludedSetPlaysChangesStateAndRendersAsTheScenesOwn() throws {
        try writeBank()
        let path = try SceneFixtures.write("""
            duration: 2.5
            include: bank.yaml
            events:
              - { at: 0, music: score, action: play }
              - { at: 0.7, music: score, state: combat }
              - { at: 0.2, music: score, layer: drums, volume: 0.5, fade: 0.1 }
            """, in: tmp)
        let scene = try Scene.load(path: path)
        XCTAssertEqual(scene.musicSets.map(\.id), ["score"])
        let out = tmp.appendingPathComponent("out.wav").path
        _ = try SceneRenderer(scene: scene).render(to: out, format: .f32)
        let audio = try RenderedAudio(path: out)
        let explore = audio.power(at: [500], 0.1, 0.2)
        print("SceneIncludedMusicSetTests: 500 Hz \(explore) at 0.1 s; 1 kHz \(audio.power(at: [1_000], 1.9, 2.0)) before the bar, \(audio.power(at: [1_000], 2.0, 2.1)) after")
        XCTAssertGreaterThan(explore, 1e-3, "the included set's first state plays")
        XCTAssertLessThan(audio.power(at: [500], 2.0, 2.1), explore * 1e-6, "explore stops on bar 2")
        XCTAssertGreaterThan(audio.power(at: [1_000], 2.0, 2.1), 1e-4, "combat on the bar")
    }

    func testValidateAgreesWithRenderForEveryEventOfAnIncludedSet() throws {
        try writeBank()
        for event in ["action: play", "action: play, state: combat", "state: combat", "action: stop, fade: 0.1", "action: pause",
                      "stinger: hit", "layer: drums, volume: 0.2, fade: 0.1"] {
            let path = try SceneFixtures.write("""
                duration: 0.3
                include: bank.yaml
                events:
                  - { at: 0, music: score, state: explore }
                  - { at: 0.1, music: score, \(event) }
                """, in: tmp)
            let scene = try Scene.load(path: path)
            XCTAssertNoThrow(try SceneRenderer(scene: scene).render(to: tmp.appendingPathComponent("e.wav").path, format: .f32), event)
        }
        // What a set refuses is refused for an included one too, with the set's own message.
        let bad = try SceneFixtures.write("""
            duration: 0.3
            include: bank.yaml
            events:
              - { at: 0, music: score, state: nowhere }
            """, in: tmp)
        guard case .failure(let p) = Scene.check(path: bad) else { return XCTFail("an unknown state of an included set validated") }
        XCTAssertTrue(p.description.contains("nowhere"), p.description)
        XCTAssertFalse(p.description.contains("is a track"), p.description)
    }

    func testARulesFadeIsBothSidesOrOutAndIn() throws {
        func rule(_ fade: String) throws -> MusicTransition? {
            try writeBank(fade: fade)
            let path = try SceneFixtures.write("duration: 0.1\ninclude: bank.yaml\n", in: tmp)
            return try Scene.load(path: path).musicSets.first?.definition.transitions.first
        }
        let both = try rule(", fade: 1.5, curve: linear")
        XCTAssertEqual(both?.fade, 1.5)
        XCTAssertEqual(both?.fadeIn, 1.5)
        XCTAssertEqual(both?.curve, .linear)
        let split = try rule(", fade: { out: 2, in: 0.5 }")
        XCTAssertEqual(split?.fade, 2)
        XCTAssertEqual(split?.fadeIn, 0.5)
        let inOnly = try rule(", fade: { in: 0.25 }")
        XCTAssertEqual(inOnly?.fade, 0)
        XCTAssertEqual(inOnly?.fadeIn, 0.25)
        try writeBank(fade: ", fade: { up: 1 }")
        guard case .failure(let p) = Scene.check(path: try SceneFixtures.write("duration: 0.1\ninclude: bank.yaml\n", in: tmp)) else {
            return XCTFail("fade: { up: } validated")
        }
        XCTAssertTrue(p.description.contains("fade"), p.description)
    }
}
