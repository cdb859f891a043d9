import EarshotTestSupport
import Foundation
import XCTest

/// Every ```swift example in the documentation — doc comments of `Sources/Earshot`,
/// `Sources/EarshotContent`, `Sources/EarshotScenes` and `Sources/EarshotBanks`, the DocC articles
/// and the README — is compiled (type-checked against the built modules), so that an example a game
/// developer copies is one that builds. Each example becomes
/// the body of a function whose errors point back at the example's own file and line
/// (`#sourceLocation`). Examples may use an `engine` they did not create (the parameter the
/// function gets), as most doc comments do. Asset paths they name must exist in the package.
final class DocExampleTests: XCTestCase {
    struct Example {
        var file: String
        var line: Int
        var code: [String]
    }

    /// The examples of one file: fenced ```swift blocks, in doc comments (`///`) or in Markdown.
    static func examples(in path: String, relative: String) throws -> [Example] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let isMarkdown = path.hasSuffix(".md")
        var out: [Example] = []
        var current: Example?
        var indent = ""
        for (i, raw) in lines.enumerated() {
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            var text: Substring
            if isMarkdown {
                text = raw[...]
            } else {
                guard trimmed.hasPrefix("///") else { current = nil; continue }
                text = trimmed.dropFirst(3)
                if text.hasPrefix(" ") { text = text.dropFirst() }
            }
            let body = text.trimmingCharacters(in: .whitespaces)
            if current == nil {
                if body == "```swift" {
                    current = Example(file: relative, line: i + 2, code: [])
                    indent = String(text.prefix { $0 == " " })
                }
            } else if body == "```" {
                if let c = current { out.append(c) }
                current = nil
            } else {
                current?.code.append(String(text.hasPrefix(indent) ? text.dropFirst(indent.count) : text))
            }
        }
        return out
    }

    func testEveryDocumentationExampleCompiles() throws {
        let root = CLIRunner.packageRoot
        var examples: [Example] = []
        for folder in ["Sources/Earshot", "Sources/EarshotContent", "Sources/EarshotScenes", "Sources/EarshotBanks"] {
            let base = root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
            for f in files.sorted() where f.hasSuffix(".swift") || f.hasSuffix(".md") {
                examples += try Self.examples(in: base.appendingPathComponent(f).path, relative: "\(folder)/\(f)")
            }
        }
        // The README's, but its manifest snippets and whole programs (DemoTests and AsyncGameDemoTests build those).
        examples += try Self.examples(in: root.appendingPathComponent("README.md").path, relative: "README.md").filter { e in
            !e.code.contains { $0.contains(".package(") || $0.hasPrefix("@main") }
        }
        XCTAssertGreaterThan(examples.count, 50, "the documentation's examples were found")

        // One file: each example is the body of its own function.
        var source = "@testable import Earshot\n@testable import EarshotContent\n@testable import EarshotScenes\n@testable import EarshotBanks\nimport Foundation\n"
        var imports = Set<String>()
        for e in examples {
            for l in e.code where l.hasPrefix("import ") { imports.insert(l) }
        }
        source += imports.sorted().joined(separator: "\n") + "\n"
        for (n, e) in examples.enumerated() {
            source += "\n@MainActor func example\(n)(engine: AudioEngine) async throws {\n"
            source += "#sourceLocation(file: \"\(root.appendingPathComponent(e.file).path)\", line: \(e.line))\n"
            source += e.code.map { $0.hasPrefix("import ") ? "" : $0 }.joined(separator: "\n")
            source += "\n#sourceLocation()\n_ = engine\n}\n"
            // Named assets must exist.
            for l in e.code {
                for match in l.matches(of: /"(Assets\/[^"]+)"/) {
                    XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent(String(match.1)).path),
                                  "\(e.file):\(e.line): the example names \(match.1), which does not exist")
                }
            }
        }
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-docexamples-\(UUID().uuidString).swift")
        try source.write(to: tmp, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: tmp) }

        let modules = CLIRunner.productsDirectory.appendingPathComponent("Modules").path
        var args = ["-typecheck", "-swift-version", "6", "-I", modules]
        for m in ["COpenAL", "CSndFile", "CVorbisFile", "CDBus", "CPulse", "CEbur128"] {
            args += ["-Xcc", "-fmodule-map-file=\(root.appendingPathComponent("Sources/\(m)/module.modulemap").path)"]
        }
        // The package's own C targets: the module maps SwiftPM wrote for them.
        for m in ["CCloseOnExec"] {
            let map = CLIRunner.productsDirectory.appendingPathComponent("\(m).build/module.modulemap").path
            args += ["-Xcc", "-fmodule-map-file=\(map)", "-Xcc", "-I\(root.appendingPathComponent("Sources/\(m)/include").path)"]
        }
        let yams = root.appendingPathComponent(".build/checkouts/Yams/Sources/CYaml/include")
        args += ["-Xcc", "-fmodule-map-file=\(yams.appendingPathComponent("module.modulemap").path)", "-Xcc", "-I\(yams.path)"]
        for dir in ["/usr/include/AL", "/usr/include/opus", "/usr/include/dbus-1.0", "/usr/lib/x86_64-linux-gnu/dbus-1.0/include"] {
            args += ["-Xcc", "-I\(dir)"]
        }
        args.append(tmp.path)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["swiftc"] + args
        let err = Pipe()
        p.standardError = err
        p.standardOutput = Pipe()
        try p.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let errors = message.split(separator: "\n").filter { $0.contains(": error: ") }
        XCTAssertEqual(p.terminationStatus, 0, "\(errors.count) errors in \(examples.count) examples:\n" + errors.joined(separator: "\n"))
    }
}
