import Foundation
import XCTest

/// The README's layout table names every folder of every target, and no folder that is gone: each
/// folder directly inside a target under `Sources/` (a C module's `include` aside), each target's own
/// folder, and each folder directly inside `Demos/`, `Tests/` and `Benchmarks/`.
final class ReadmeLayoutTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The paths the `## Layout` table names in backticks (`Sources/…`, `Demos/…`, `Tests/…`, `Benchmarks/…`).
    static func tablePaths() throws -> Set<String> {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "\n## Layout\n"), "README lost its ## Layout section")
        let rest = readme[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        var paths: Set<String> = []
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            for (i, piece) in cell.split(separator: "`", omittingEmptySubsequences: false).enumerated() where i % 2 == 1 {
                let path = piece.hasSuffix("/") ? String(piece.dropLast()) : String(piece)
                if ["Sources/", "Demos/", "Tests/", "Benchmarks/"].contains(where: path.hasPrefix) { paths.insert(path) }
            }
        }
        return paths
    }

    static func folders(in relative: String) -> [String] {
        let url = root.appendingPathComponent(relative)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.sorted().filter { name in
            var isFolder: ObjCBool = false
            return !name.hasPrefix(".") && FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isFolder)
                && isFolder.boolValue
        }.map { "\(relative)/\($0)" }
    }

    func testTheLayoutTableNamesEveryFolderAndOnlyFoldersThatExist() throws {
        let named = try Self.tablePaths()
        var wanted: [String] = []
        for target in Self.folders(in: "Sources") {
            wanted.append(target)
            wanted += Self.folders(in: target).filter { !$0.hasSuffix("/include") }
        }
        for top in ["Demos", "Tests", "Benchmarks"] { wanted += Self.folders(in: top) }
        XCTAssertGreaterThan(wanted.count, 40, "the package's folders were not found from \(Self.root.path)")
        let missing = wanted.filter { !named.contains($0) }
        XCTAssertEqual(missing, [], "folders missing from the README's ## Layout table (one row each, with what it holds)")
        let gone = named.filter { path in !FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path) }
        XCTAssertEqual(gone.sorted(), [], "the README's ## Layout table names paths that do not exist")
    }
}
