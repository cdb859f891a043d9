import Earshot
import Foundation
import Yams

/// Typed reading of a YAML node tree with positions: every problem it records names the file,
/// line, column and key path (`events[3].position[1]`) where it was found, and reading goes on
/// so that one pass reports them all.
///
/// Schema-free and reusable: a schema (the scene's, ``SceneParser``) conforms, keeps the
/// problems, and reads its nodes with ``mapping(_:_:allowed:required:)``, ``idMapping(_:_:)``,
/// ``string(_:_:)``, ``choice(_:_:_:)``, ``bool(_:_:)``, ``number(_:_:in:_:)``,
/// ``integer(_:_:in:)``, ``vector(_:_:)`` and ``direction(_:_:)``; each returns nil after
/// recording a problem when the node is not what it should be.
///
/// ```swift
/// import Yams
/// struct Settings: YAMLReader {
///     let file = "settings.yaml"
///     var problems: [SceneError] = []
/// }
/// var reader = Settings()
/// if let root = try Yams.compose(yaml: "volume: 2"),
///    let m = reader.mapping(root, "", allowed: ["volume"]) {
///     _ = m["volume"].flatMap { reader.number($0, "volume", in: 0...1, "0…1") }
/// }
/// print(reader.problems)   // one problem: settings.yaml, line 1, column 9, key volume, out of range
/// ```
protocol YAMLReader {
    /// The file the nodes come from, for messages.
    var file: String { get }
    /// Every problem found so far, in the order found.
    var problems: [SceneError] { get set }
}

extension YAMLReader {
    /// Records a problem at `node`'s position (the file's start without a node), under `key`.
    mutating func fail(_ node: Node?, _ key: String, _ reason: String) {
        let mark = node?.mark
        problems.append(
            .invalid(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1, key: key, reason: reason))
    }

    /// A Yams error as a problem at its line and column.
    mutating func yamlProblem(_ error: YamlError) {
        func text(_ context: YamlError.Context?, _ problem: String) -> String {
            // libyaml's words, reordered where they read garbled.
            if problem.contains("another document") || context?.text.contains("single document") == true {
                return
                    "a second YAML document starts here (a scene is one document: remove this `---` and what follows, or put it in a file of its own)"
            }
            return "YAML syntax: " + (context.map { "\($0.text): " } ?? "") + problem
        }
        switch error {
        case .scanner(let context, let problem, let mark, let yaml),
            .parser(let context, let problem, let mark, let yaml),
            .composer(let context, let problem, let mark, let yaml):
            if let column = Self.tabColumn(yaml, line: mark.line, near: mark.column) {
                problems.append(.invalid(file: file, line: mark.line, column: column, key: "",
                                         reason: "a tab: YAML indents with spaces only (replace the tab with spaces)"))
                return
            }
            problems.append(
                .invalid(file: file, line: mark.line, column: mark.column, key: "", reason: text(context, problem)))
        case .reader(let problem, _, _, _):
            fail(nil, "", "YAML syntax: \(problem)")
        default:
            fail(nil, "", "YAML syntax: \(error)")
        }
    }

    /// The column (1-based) of the tab libyaml stopped at on `line` — at `column`, or in the
    /// line's indentation — or nil when no tab is to blame.
    static func tabColumn(_ yaml: String, line: Int, near column: Int) -> Int? {
        guard line >= 1 else { return nil }
        var current = 1
        var text = Substring(yaml)
        while current < line, let newline = text.firstIndex(of: "\n") {
            text = text[text.index(after: newline)...]
            current += 1
        }
        guard current == line else { return nil }
        let row = Array(text.prefix { $0 != "\n" }.unicodeScalars.prefix(4_096))
        if column >= 1, column <= row.count, row[column - 1] == "\t" { return column }
        for (i, c) in row.enumerated() {
            if c == "\t" { return i + 1 }
            if c != " " { break }
        }
        return nil
    }

    /// Whether `node` is YAML's null: a plain (unquoted) empty value, `~` or `null` (YAML 1.2's
    /// core schema spellings). Only these: a word such as `nothing` (quoted or not) is a string.
    func isNull(_ node: Node) -> Bool {
        guard case .scalar(let s) = node, s.style == .plain else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(s.string)
    }

    /// How a node reads in a message: "a mapping", "a list of 3", "nothing", the string or the value.
    func describe(_ node: Node) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence(let s): return "a list of \(s.count)"
        case .scalar(let s):
            if isNull(node) { return "nothing" }
            if s.style == .singleQuoted || s.style == .doubleQuoted { return "the string \"\(s.string)\"" }
            return "\(s.string)"
        }
    }

    /// The longest word (and candidate) a "did you mean" compares, in Unicode scalars: a
    /// suggestion for a longer one would not help a reader, and comparing two megabyte-long ids
    /// costs O(n·m) (a scene with a 1 MB id and a near miss kept `validate` busy for minutes).
    static var maxSuggestionLength: Int { 64 }

    /// ` (did you mean 'x'?)` when one of `candidates` is within a small edit distance of `word`
    /// (a third of its length, at least 1, at most 3 edits); empty otherwise. Words and
    /// candidates longer than ``maxSuggestionLength`` are not compared.
    static func didYouMean(_ word: String, among candidates: some Sequence<String>) -> String {
        let length = word.unicodeScalars.count
        guard length <= maxSuggestionLength else { return "" }
        let limit = min(3, max(1, length / 3))
        var best: (String, Int)?
        for c in candidates {
            // Cheap refusals first: a length that differs by more than the limit cannot be near.
            let n = c.unicodeScalars.count
            guard n <= maxSuggestionLength, abs(n - length) <= limit else { continue }
            let d = editDistance(word, c, limit: limit)
            if d <= limit, d < (best?.1 ?? Int.max) { best = (c, d) }
        }
        return best.map { " (did you mean '\($0.0)'?)" } ?? ""
    }

    /// Edit distance between `a` and `b` (case-insensitive; insertions, deletions, substitutions
    /// and swaps of two neighbours each count 1: 'plya' is one edit from 'play'), or more than
    /// `limit` as soon as it must be. Only the band of cells within `limit` of the diagonal is
    /// computed (the others are over the limit anyway): O((n + m) · limit).
    static func editDistance(_ a: String, _ b: String, limit: Int) -> Int {
        let x = Array(a.lowercased().unicodeScalars), y = Array(b.lowercased().unicodeScalars)
        guard abs(x.count - y.count) <= limit else { return limit + 1 }
        guard !x.isEmpty else { return y.count }
        guard !y.isEmpty else { return x.count }
        let over = limit + 1
        var older = [Int](repeating: over, count: y.count + 1)
        var previous = (0...y.count).map { min($0, over) }, current = [Int](repeating: over, count: y.count + 1)
        for i in 1...x.count {
            let lo = max(1, i - limit), hi = min(y.count, i + limit)
            current[0] = min(i, over)
            if lo > 1 { current[lo - 1] = over }
            var rowMin = lo == 1 ? current[0] : over
            if lo <= hi {
                for j in lo...hi {
                    var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                    if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d = min(d, older[j - 2] + 1) }
                    current[j] = min(d, over)
                    rowMin = min(rowMin, current[j])
                }
            }
            if hi < y.count { current[hi + 1] = over }
            if rowMin > limit { return over }
            (older, previous, current) = (previous, current, older)
        }
        return previous[y.count]
    }

    static func join(_ key: String, _ name: String) -> String { key.isEmpty ? name : "\(key).\(name)" }

    /// The entries of a mapping, merge keys applied (``merged(_:)``); otherwise nil, and a problem
    /// saying it expected `what`.
    mutating func mappingEntries(_ node: Node, _ key: String, expected what: String) -> [(Node, Node)]? {
        guard case .mapping = node else {
            fail(node, key, "expected \(what), got \(describe(node))")
            return nil
        }
        return merged(node)
    }

    /// A mapping with known keys; unknown and duplicate keys and missing required ones are problems.
    mutating func mapping(_ node: Node, _ key: String, allowed: [String], required: [String] = []) -> [String: Node]? {
        guard let entries = mappingEntries(node, key, expected: "a mapping ({ key: value, … })") else {
            return nil
        }
        var out: [String: Node] = [:]
        for (k, v) in entries {
            guard case .scalar(let s) = k, !s.string.isEmpty else {
                fail(k, key, "keys must be plain names")
                continue
            }
            let name = s.string
            let path = Self.join(key, name)
            guard allowed.contains(name) else {
                fail(k, path, "unknown key '\(name)'" + Self.didYouMean(name, among: allowed)
                     + " (expected one of: \(allowed.joined(separator: ", ")))")
                continue
            }
            guard out[name] == nil else {
                fail(k, path, "duplicate key")
                continue
            }
            out[name] = v
        }
        for r in required where out[r] == nil {
            fail(node, Self.join(key, r), "required key is missing")
        }
        return out
    }

    /// The pairs of a mapping with YAML merge keys expanded: `<<: *anchor` (or a list of them)
    /// brings in the anchored mapping's pairs, which the mapping's own keys override (and earlier
    /// merged mappings override later ones). Not a mapping: no pairs.
    func merged(_ node: Node) -> [(Node, Node)] {
        guard case .mapping(let m) = node else { return [] }
        var own: [(Node, Node)] = []
        var merges: [Node] = []
        for (k, v) in m {
            if case .scalar(let s) = k, s.string == "<<" {
                if case .sequence(let list) = v { merges += Array(list) } else { merges.append(v) }
            } else {
                own.append((k, v))
            }
        }
        guard !merges.isEmpty else { return own }
        var seen = Set(
            own.compactMap { k, _ -> String? in if case .scalar(let s) = k { return s.string } else { return nil } })
        var out = own
        for source in merges {
            guard case .mapping(let sm) = source else { continue }  // a merge of a non-mapping: its key is reported below
            for (k, v) in sm {
                guard case .scalar(let s) = k, !seen.contains(s.string) else { continue }
                seen.insert(s.string)
                out.append((k, v))
            }
        }
        return out
    }

    /// A mapping of ids to values, in file order (ids are any non-empty names, each once).
    mutating func idMapping(_ node: Node, _ key: String) -> [(id: String, keyNode: Node, value: Node)] {
        guard case .mapping(let m) = node else {
            if case .scalar(let s) = node, s.style == .plain, ["", "~", "null"].contains(s.string) { return [] }
            fail(node, key, "expected a mapping of ids ({ id: …, … }), got \(describe(node))")
            return []
        }
        var seen = Set<String>()
        var out: [(String, Node, Node)] = []
        for (k, v) in m {
            guard case .scalar(let s) = k, !s.string.isEmpty else {
                fail(k, key, "ids must be plain names")
                continue
            }
            guard seen.insert(s.string).inserted else {
                fail(k, "\(key).\(s.string)", "duplicate id")
                continue
            }
            out.append((s.string, k, v))
        }
        return out
    }

    mutating func string(_ node: Node, _ key: String) -> String? {
        guard case .scalar(let s) = node, !isNull(node), !s.string.isEmpty else {
            fail(node, key, "expected text, got \(describe(node))")
            return nil
        }
        return s.string
    }

    mutating func choice(_ node: Node, _ key: String, _ options: [String]) -> String? {
        guard let s = string(node, key) else { return nil }
        guard options.contains(s) else {
            fail(node, key, "\"\(s)\" is not one of: \(options.joined(separator: ", "))")
            return nil
        }
        return s
    }

    mutating func bool(_ node: Node, _ key: String) -> Bool? {
        if case .scalar(let s) = node, s.style == .plain {
            switch s.string {
            case "true", "True", "TRUE": return true
            case "false", "False", "FALSE": return false
            default: break
            }
        }
        fail(node, key, "expected true or false, got \(describe(node))")
        return nil
    }

    /// A finite number (plain YAML scalar) within `range`.
    mutating func number(_ node: Node, _ key: String, in range: ClosedRange<Double>, _ expectation: String) -> Double? {
        guard case .scalar(let s) = node, s.style == .plain || s.style == .any,
            let value = Double(
                s.string.utf8.contains(UInt8(ascii: "_")) ? s.string.replacingOccurrences(of: "_", with: "") : s.string),
            value.isFinite
        else {
            fail(node, key, "expected a number (\(expectation)), got \(describe(node))")
            return nil
        }
        return inRange(range, value, node, key, shown: s.string, expectation)
    }

    /// `value` when `range` holds it; otherwise nil, and a problem naming it as `shown`.
    private mutating func inRange<T: Comparable>(_ range: ClosedRange<T>, _ value: T, _ node: Node, _ key: String,
                                                  shown: String, _ expectation: String) -> T? {
        guard range.contains(value) else {
            fail(node, key, "\(shown) is out of range (expected \(expectation))")
            return nil
        }
        return value
    }

    /// A finite number within a `Float` range (the engine's EFX ranges), compared as the `Float`
    /// it becomes, both ends included: `0.1` for a range starting at `Float(0.1)` is in range (as a
    /// Double the bound reads 0.10000000149, which would refuse 0.1 against its own minimum).
    mutating func number(_ node: Node, _ key: String, in range: ClosedRange<Float>) -> Float? {
        let expectation = "\(range.lowerBound)…\(range.upperBound)"
        guard
            let v = number(node, key, in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude, expectation)
        else { return nil }
        return inRange(range, Float(v), node, key, shown: describe(node), expectation)
    }

    mutating func integer(_ node: Node, _ key: String, in range: ClosedRange<Int>) -> Int? {
        let expectation = "a whole number \(range.lowerBound)…\(range.upperBound)"
        guard let v = number(node, key, in: Double(range.lowerBound)...Double(range.upperBound), expectation) else {
            return nil
        }
        guard v.rounded() == v else {
            fail(node, key, "\(v) is not a whole number (expected \(expectation))")
            return nil
        }
        return Int(v)
    }

    /// A list of exactly `count` items (a point, a keyframe); otherwise nil, and the problem
    /// `problem` makes of what was found.
    mutating func tuple(_ node: Node, _ key: String, count: Int,
                        _ problem: (_ got: String) -> String) -> Node.Sequence? {
        guard case .sequence(let items) = node, items.count == count else {
            fail(node, key, problem(describe(node)))
            return nil
        }
        return items
    }

    /// `[x, y, z]`, finite.
    mutating func vector(_ node: Node, _ key: String) -> Vector3? {
        guard let seq = tuple(node, key, count: 3, { "expected [x, y, z] (three numbers, metres), got \($0)" }) else {
            return nil
        }
        let range = -1e6...1e6
        var c: [Float] = []
        for (i, n) in seq.enumerated() {
            guard let v = number(n, "\(key)[\(i)]", in: range, "metres within ±1000000") else { return nil }
            c.append(Float(v))
        }
        return Vector3(c[0], c[1], c[2])
    }

    /// A direction: a vector that is not zero.
    mutating func direction(_ node: Node, _ key: String) -> Vector3? {
        guard let v = vector(node, key) else { return nil }
        guard v.length > 0 else {
            fail(node, key, "a direction cannot be [0, 0, 0]")
            return nil
        }
        return v
    }
}
