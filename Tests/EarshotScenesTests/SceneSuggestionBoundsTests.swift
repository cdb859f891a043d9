@testable import EarshotContent
@testable import EarshotScenes
import XCTest

/// "Did you mean" is bounded (issue 24, class 3): a scene with a megabyte-long id and a near-miss
/// reference kept `validate` busy for minutes (an O(n·m) edit distance on unbounded strings).
final class SceneSuggestionBoundsTests: XCTestCase {
    /// The banded edit distance agrees with the full one wherever the result is within the limit.
    func testBandedDistanceAgreesWithTheFullTable() {
        func full(_ a: String, _ b: String) -> Int {
            let x = Array(a.lowercased().unicodeScalars), y = Array(b.lowercased().unicodeScalars)
            var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
            for i in 0...x.count { d[i][0] = i }
            for j in 0...y.count { d[0][j] = j }
            for i in stride(from: 1, through: x.count, by: 1) {
                for j in stride(from: 1, through: y.count, by: 1) {
                    d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                    if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
                }
            }
            return d[x.count][y.count]
        }
        let words = ["play", "plya", "stop", "sotp", "music", "musci", "", "a", "ab", "ba", "abc", "emitter", "emiter", "emmitter", "listener", "lsitener", "xyzzy", "footsteps", "footstep", "Footsteps2"]
        for a in words {
            for b in words {
                for limit in 1...3 {
                    let banded = SceneParser.editDistance(a, b, limit: limit)
                    let exact = full(a, b)
                    if exact <= limit { XCTAssertEqual(banded, exact, "\(a)/\(b) limit \(limit)") } else { XCTAssertGreaterThan(banded, limit, "\(a)/\(b) limit \(limit)") }
                }
            }
        }
    }

    /// A 1 MB id (an explicit YAML key: plain keys stop at 1,024 characters) and a reference one
    /// letter off: the reference is refused at once, with no suggestion (longer than
    /// maxSuggestionLength), where it used to take minutes.
    func testMegabyteIdWithANearMissIsRefusedAtOnce() {
        let id = String(repeating: "a", count: 1_000_000)
        let yaml = """
        name: t
        duration: 1
        clips:
          c: beep.wav
        emitters:
          ? \(id)
          : { clip: c, position: [0, 0, 0] }
        events:
          - { at: 0.5, start: \(id.dropLast())b }
        """
        guard case .failure(let problems) = Scene.check(yaml: yaml, path: "long.yaml") else { return XCTFail("accepted") }
        let text = "\(problems)"
        XCTAssertTrue(text.contains("no emitter with id"), String(text.prefix(300)))
        XCTAssertFalse(text.contains("did you mean"), String(text.prefix(300)))
        // Short ids still get their suggestion.
        XCTAssertEqual(SceneParser.didYouMean("machien", among: ["machine", "door"]), " (did you mean 'machine'?)")
    }
}
