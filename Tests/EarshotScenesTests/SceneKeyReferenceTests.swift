@testable import EarshotContent
@testable import EarshotScenes
import EarshotTestSupport
import Foundation
import XCTest

/// The scene and bank key reference has one source, `Demos/Scenes/README.md`; the DocC catalog's
/// copy (`SceneAndBankKeys.md`, written by `make docc-keys`) must be the same text, and every
/// key the parser accepts must appear in it.
final class SceneKeyReferenceTests: XCTestCase {
    static let readme = CLIRunner.packageRoot.appendingPathComponent("Demos/Scenes/README.md").path
    static let docc = CLIRunner.packageRoot.appendingPathComponent("Sources/EarshotScenes/EarshotScenes.docc/SceneAndBankKeys.md").path

    /// The README's reference: from `## Top level` up to `## Errors`.
    static func reference(_ text: String) -> [Substring]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "## Top level"), let end = lines.firstIndex(of: "## Errors"), start < end else { return nil }
        return Array(lines[start..<end])
    }

    /// The DocC copy: between its BEGIN and END markers.
    static func copy(_ text: String) -> [Substring]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let begin = lines.firstIndex(where: { $0.hasPrefix("<!-- BEGIN generated") }),
              let end = lines.firstIndex(where: { $0.hasPrefix("<!-- END generated") }), begin < end else { return nil }
        return Array(lines[(begin + 1)..<end])
    }

    func testTheDocCReferenceIsTheREADMEs() throws {
        let readme = try String(contentsOfFile: Self.readme, encoding: .utf8)
        let docc = try String(contentsOfFile: Self.docc, encoding: .utf8)
        let source = try XCTUnwrap(Self.reference(readme), "Demos/Scenes/README.md lost its ## Top level … ## Errors sections")
        let copied = try XCTUnwrap(Self.copy(docc), "SceneAndBankKeys.md lost its BEGIN/END markers")
        guard source != copied else { return }
        let first = (0..<min(source.count, copied.count)).first { source[$0] != copied[$0] } ?? min(source.count, copied.count)
        XCTFail("SceneAndBankKeys.md differs from Demos/Scenes/README.md from reference line \(first + 1) "
                + "(README: \"\(first < source.count ? source[first] : "<end>")\", DocC: \"\(first < copied.count ? copied[first] : "<end>")\"): run make docc-keys")
    }

    func testEveryTopLevelSoundClipAndDistanceKeyIsDocumented() throws {
        let readme = try String(contentsOfFile: Self.readme, encoding: .utf8)
        let reference = try XCTUnwrap(Self.reference(readme)).joined(separator: "\n")
        for key in Set(SceneParser.topKeys + SceneParser.bankKeys + SceneParser.soundKeys + SceneParser.attenuationKeys
                          + SceneParser.clipKeys) {
            XCTAssertTrue(reference.contains("`\(key)`"), "\(key) is not in the key reference of Demos/Scenes/README.md")
        }
    }
}
