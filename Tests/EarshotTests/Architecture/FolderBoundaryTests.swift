import Foundation
import XCTest

/// A feature owns its state: every stored `var` of a class or actor in a feature folder is
/// `private`, `private(set)`, `fileprivate` or `fileprivate(set)`, so only the file that declares
/// it can write it and the compiler refuses a write from another folder. Other folders read it
/// (or change it through the owner's methods: the narrow protocol). The few exceptions are in
/// ``allowed``, each with its reason. Run it alone with
/// `swift test --disable-swift-testing --filter FolderBoundaryTests`.
final class FolderBoundaryTests: XCTestCase {
    /// The folders of `Sources/Earshot` whose types must own their state.
    static let featureFolders = ["Buses", "Device", "Environment", "Linux", "Markers", "Mix", "Monitor", "Recording",
                                 "Session", "Spatial", "Support", "Time"]

    /// `Folder/File.swift: Type.property` → why it may stay writable from outside its file.
    static let allowed: [String: String] = [
        "Monitor/MonitorSubsystem.swift: WeakBox.monitor":
            "a weak back-reference in a private box, written once in the monitor's init (weak needs var)",
    ]

    func testFeatureTypesOwnTheirStoredProperties() throws {
        let root = Self.sourcesRoot()
        var found: [String] = []
        for folder in Self.featureFolders {
            found += try Self.exposedStoredProperties(in: root.appendingPathComponent(folder), folder: folder)
        }
        XCTAssertFalse(found.isEmpty && Self.allowed.isEmpty, "the scan read nothing")
        let unexpected = found.filter { Self.allowed[$0] == nil }
        XCTAssertEqual(unexpected, [], """
            stored properties another folder could write (make them private or private(set) and give \
            the owner a method; or, if there is no other way, add them to FolderBoundaryTests.allowed \
            with the reason)
            """)
        let stale = Self.allowed.keys.filter { !found.contains($0) }.sorted()
        XCTAssertEqual(stale, [], "allow-list entries that no longer match anything: remove them")
    }

    /// The scanner finds a planted violation (and only it): a check that can fail.
    func testScannerCatchesAPlantedWritableProperty() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("boundary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = """
            final class Table {
                private(set) var rows: [Int] = []
                private var scratch = 0
                fileprivate var shared = 0
                let capacity = 4
                var count: Int { rows.count }
                var leaked: [Int] = []
                @exclusivity(unchecked) var hot: [Float] = []
                var observed: Int = 0 { didSet { scratch = 1 } }
                var lazyOne: Int {
                    get { 1 }
                }
                static var shared2 = 0
                func f() { var local = 0; local += 1 }
                struct Value { var free = 0 }
            }
            struct Plain { var x = 0 }
            """
        try source.write(to: dir.appendingPathComponent("Table.swift"), atomically: true, encoding: .utf8)
        let found = try Self.exposedStoredProperties(in: dir, folder: "Planted")
        XCTAssertEqual(found, ["Planted/Table.swift: Table.leaked", "Planted/Table.swift: Table.hot",
                               "Planted/Table.swift: Table.observed"])
    }

    static func sourcesRoot() -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/Earshot")
    }

    /// `Folder/File.swift: Type.property` for every stored instance `var` of a class or actor
    /// declared in `dir` (not below it) without private or fileprivate access. Reads the code
    /// as formatted in this repository: four-space indentation, a member one level inside its type.
    static func exposedStoredProperties(in dir: URL, folder: String) throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".swift") }.sorted()
        var found: [String] = []
        for file in files {
            let lines = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var types: [(indent: Int, name: String)] = []
            for (n, line) in lines.enumerated() {
                let indent = line.prefix { $0 == " " }.count
                let body = line.dropFirst(indent)
                if let name = typeName(body), line.contains("{") {
                    types.append((indent, name))
                    continue
                }
                guard let type = types.last else { continue }
                if indent == type.indent, body.hasPrefix("}") {
                    types.removeLast()
                    continue
                }
                guard indent == type.indent + 4, let (modifiers, name, rest) = varDeclaration(body) else { continue }
                if modifiers.contains("static") || modifiers.contains("class") { continue }
                if modifiers.contains(where: { $0.hasPrefix("private") || $0.hasPrefix("fileprivate") }) { continue }
                if isComputed(rest, next: n + 1 < lines.count ? lines[n + 1] : "") { continue }
                found.append("\(folder)/\(file): \(type.name).\(name)")
            }
        }
        return found
    }

    /// The name of the class or actor this line declares (nil: none; structs and enums are values).
    static func typeName(_ body: Substring) -> String? {
        var words = body.split(separator: " ", omittingEmptySubsequences: true)
        while let w = words.first, ["public", "internal", "private", "fileprivate", "final", "open"].contains(w) {
            words.removeFirst()
        }
        guard words.count >= 2, words[0] == "class" || words[0] == "actor" else { return nil }
        let name = words[1].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        guard !name.isEmpty, !["func", "var", "let"].contains(String(name)) else { return nil }
        return String(name)
    }

    /// A `var` declaration: its modifiers and attributes, the name, and what follows the name.
    static func varDeclaration(_ body: Substring) -> (modifiers: [String], name: String, rest: Substring)? {
        var rest = body
        var modifiers: [String] = []
        while true {
            if rest.hasPrefix("var ") { break }
            guard let end = wordEnd(rest) else { return nil }
            let word = String(rest[..<end])
            let known = ["public", "internal", "private", "fileprivate", "static", "class", "lazy", "weak", "unowned",
                         "nonisolated", "final", "override", "open"]
            guard word.hasPrefix("@") || known.contains(where: { word == $0 || word.hasPrefix($0 + "(") }) else { return nil }
            modifiers.append(word)
            rest = rest[end...].drop { $0 == " " }
        }
        rest = rest.dropFirst(4)
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        guard !name.isEmpty else { return nil }
        return (modifiers, String(name), rest.dropFirst(name.count))
    }

    /// The end of the first word, an attribute's or a modifier's parenthesised argument included.
    static func wordEnd(_ s: Substring) -> Substring.Index? {
        var depth = 0
        var i = s.startIndex
        while i < s.endIndex {
            switch s[i] {
            case "(": depth += 1
            case ")": depth -= 1
            case " " where depth == 0: return i
            default: break
            }
            i = s.index(after: i)
        }
        return nil
    }

    /// Whether what follows a var's name makes it computed: a brace before any `=`, whose block
    /// is not `didSet`/`willSet` (observers belong to stored properties).
    static func isComputed(_ rest: Substring, next: String) -> Bool {
        guard let brace = rest.firstIndex(of: "{") else { return false }
        if let equals = rest.firstIndex(of: "="), equals < brace { return false }
        var block = rest[rest.index(after: brace)...].drop { $0 == " " }
        if block.isEmpty { block = Substring(next.drop { $0 == " " }) }
        return !(block.hasPrefix("didSet") || block.hasPrefix("willSet"))
    }
}
