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
    static let featureFolders = ["Beds", "Buses", "Device", "Dialogue", "Environment", "Linux", "Listeners", "Loudness", "Markers", "Mix",
                                 "Monitor", "Recording", "Rooms", "Session", "Spatial", "Support", "Time", "Timelines"]

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

    /// The features change the engine core only through its methods: no file in a feature folder
    /// assigns, appends to or passes `inout` a stored property of `EngineCore` (`core.x = …`).
    func testFeaturesWriteNoEngineCoreState() throws {
        let root = Self.sourcesRoot()
        let stored = try Self.storedProperties(of: "EngineCore", in: root.appendingPathComponent("Engine/EngineCore.swift"))
        XCTAssertGreaterThan(stored.count, 5, "the scan read EngineCore's fields")
        var found: [String] = []
        for folder in Self.featureFolders {
            found += try Self.coreWrites(in: root.appendingPathComponent(folder), folder: folder, stored: stored)
        }
        XCTAssertEqual(found, [], "writes into EngineCore's state from a feature folder: give the core a method")
    }

    /// The write scanner finds planted writes and passes reads and method calls.
    func testWriteScannerCatchesPlantedWrites() throws {
        let source = """
            func f(core: EngineCore) {
                core.voiceMarkers.removeAll()
                core.clips[0].buffer = 0
                core.masterGain += 1
                swap(&core.random, &other)
                if core.masterGain == 1 { core.setMasterGain(2) }
                let n = core.clips.count
            }
            """
        let found = try FolderBoundaryTests.withPlanted(source) { dir in
            try Self.coreWrites(in: dir, folder: "Planted", stored: ["voiceMarkers", "clips", "masterGain", "random"])
        }
        XCTAssertEqual(found, ["Planted/F.swift:2: core.voiceMarkers", "Planted/F.swift:3: core.clips",
                               "Planted/F.swift:4: core.masterGain", "Planted/F.swift:5: core.random"])
    }

    /// The scanner finds a planted violation (and only it): a check that can fail.
    func testScannerCatchesAPlantedWritableProperty() throws {
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
        let found = try FolderBoundaryTests.withPlanted(source, as: "Table.swift") { dir in
            try Self.exposedStoredProperties(in: dir, folder: "Planted")
        }
        XCTAssertEqual(found, ["Planted/Table.swift: Table.leaked", "Planted/Table.swift: Table.hot",
                               "Planted/Table.swift: Table.observed"])
    }

    /// Runs `body` with a temporary folder holding `source` as the file `name` (a scanner's
    /// planted self-test); the folder is removed afterwards.
    static func withPlanted<T>(_ source: String, as name: String = "F.swift", _ body: (URL) throws -> T) throws -> T {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("planted-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try source.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        return try body(dir)
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

    /// The stored instance properties `type` declares in `file` (any access level).
    static func storedProperties(of type: String, in file: URL) throws -> Set<String> {
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var names = Set<String>()
        var inside = false
        for (n, line) in lines.enumerated() {
            let indent = line.prefix { $0 == " " }.count
            let body = line.dropFirst(indent)
            if indent == 0, typeName(body) == type { inside = true; continue }
            if inside, indent == 0, body.hasPrefix("}") { break }
            guard inside, indent == 4, let (modifiers, name, rest) = varDeclaration(body) else { continue }
            if modifiers.contains("static") { continue }
            if isComputed(rest, next: n + 1 < lines.count ? String(lines[n + 1]) : "") { continue }
            names.insert(name)
        }
        return names
    }

    /// `Folder/File.swift:line: core.name` for each write through `core.` (or `receiver.`) to one
    /// of `stored`: an assignment (compound too) to it or to a part of it, a mutating call on it,
    /// or `&core.name`.
    static func coreWrites(in dir: URL, folder: String, stored: Set<String>, receiver: String = "core") throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".swift") }.sorted()
        let write = try NSRegularExpression(
            pattern: #"(&?)\b"# + receiver + #"\.(\w+)((?:\[[^\]]*\]|\.\w+)*)(\s*(?:\+=|-=|\*=|/=|\|=|&=|=(?!=))|\()?"#)
        let mutators: Set<String> = ["append", "insert", "remove", "removeAll", "removeFirst", "removeLast", "popLast",
                                     "sort", "swapAt", "formUnion", "subtract"]
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = String(line).components(separatedBy: "//").first ?? ""
                for m in write.matches(in: code, range: NSRange(code.startIndex..., in: code)) {
                    func group(_ i: Int) -> String? { Range(m.range(at: i), in: code).map { String(code[$0]) } }
                    guard let name = group(2), stored.contains(name) else { continue }
                    let path = group(3) ?? "", after = group(4) ?? ""
                    let last = path.split(separator: ".").last.map(String.init) ?? ""
                    let assigns = !after.isEmpty && after != "("
                    let mutates = after == "(" && path.hasSuffix("." + last) && mutators.contains(last)
                    if group(1) == "&" || assigns || mutates { found.append("\(folder)/\(file):\(n + 1): \(receiver).\(name)") }
                }
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
