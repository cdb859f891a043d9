import EarshotScenes
import XCTest

/// Range messages tell the truth (issue 24, class 6): documented inclusive minimums are accepted
/// (`decayTime: 0.1` was refused against "0.1…20.0": a Float bound compared as a Double), and a
/// refusal names the real minimum (`every: 0.0001` was refused as "expected > 0").
final class SceneNumberRangeTests: XCTestCase {
    func scene(_ zoneReverb: String, every: String = "1") -> String {
        """
        name: t
        duration: 1
        clips:
          c: beep.wav
        zones:
          z: { reverb: \(zoneReverb), sphere: { center: [0, 0, 0], radius: 5 } }
        events:
          - { at: 0, play: c, position: [0, 0, 0], every: \(every), count: 2 }
        """
    }

    func problems(_ yaml: String) -> String? {
        if case .failure(let p) = Scene.check(yaml: yaml, path: "t.yaml") { return "\(p)" }
        return nil
    }

    func testDocumentedEFXEdgesAreInclusive() {
        for edge in ["decayTime: 0.1", "decayTime: 20", "decayHFRatio: 0.1", "decayHFRatio: 2", "echoTime: 0.075", "airAbsorptionGainHF: 0.892",
                     "modulationTime: 0.04", "reflectionsGain: 3.16", "hfReference: 1000", "lfReference: 1000"] {
            let p = problems(scene("{ preset: hangar, \(edge) }"))
            XCTAssertFalse(p?.contains("out of range") ?? false, "\(edge): \(p ?? "")")
        }
        let below = problems(scene("{ preset: hangar, decayTime: 0.0999 }")) ?? ""
        XCTAssertTrue(below.contains("0.0999 is out of range (expected 0.1…20.0)"), below)
    }

    func testMinimumsAreNamed() {
        let p = problems(scene("hangar", every: "0.0001")) ?? ""
        XCTAssertTrue(p.contains("0.0001 is out of range (expected seconds, 0.001…86400)"), p)
        XCTAssertFalse(p.contains("> 0"), p)
    }
}
