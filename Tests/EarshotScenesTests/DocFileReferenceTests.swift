import Foundation
import XCTest

/// Every Swift file a comment or a document names exists: `VoicePool.swift`,
/// `Music/AudioEngine+Music.swift` or `Sources/EarshotStress/RawBaseline.swift`, in the comments
/// of `Sources/`, the DocC articles and the READMEs. A file moved or renamed takes its mentions
/// with it.
final class DocFileReferenceTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every file under `folder`, as a path from the package root.
    static func files(under folder: String) -> [String] {
        let base = root.appendingPathComponent(folder)
        let names = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
        return names.filter { !$0.hasPrefix(".") }.map { "\(folder)/\($0)" }
    }

    /// The `….swift` names in `text` (letters, digits, `_`, `+`, `-`, `/`).
    static func swiftNames(in text: Substring) -> [String] {
        var names: [String] = []
        var rest = text[...]
        while let dot = rest.range(of: ".swift") {
            let after = rest[dot.upperBound...].first
            if after == nil || !(after!.isLetter || after!.isNumber) {
                let head = rest[..<dot.lowerBound]
                let name = head.reversed().prefix { $0.isLetter || $0.isNumber || "_+-/".contains($0) }
                if !name.isEmpty { names.append(String(name.reversed()) + ".swift") }
            }
            rest = rest[dot.upperBound...]
        }
        return names
    }

    func testEverySwiftFileNamedInCommentsAndDocsExists() throws {
        let tree = ["Sources", "Tests", "Demos", "Benchmarks"].flatMap(Self.files(under:)) + ["Package.swift"]
        XCTAssertGreaterThan(tree.count, 300, "the package's files were not found from \(Self.root.path)")
        let swiftFiles = tree.filter { $0.hasSuffix(".swift") }
        let readers = Self.files(under: "Sources").filter { $0.hasSuffix(".swift") || $0.hasSuffix(".md") }
            + ["README.md", "Demos/Scenes/README.md", "Benchmarks/README.md", "Tests/Fuzz/README.md"]
        var missing: [String] = []
        for path in readers.sorted() {
            let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if path.hasSuffix(".swift") && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                for name in Self.swiftNames(in: line) {
                    let relative = name.hasPrefix("/") ? String(name.dropFirst()) : name
                    if !swiftFiles.contains(where: { $0 == relative || $0.hasSuffix("/" + relative) }) {
                        missing.append("\(path):\(n + 1): \(name)")
                    }
                }
            }
        }
        XCTAssertEqual(missing, [], "Swift files named in comments or docs that do not exist (moved or renamed?)")
    }
}
