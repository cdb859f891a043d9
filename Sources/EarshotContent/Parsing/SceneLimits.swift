import CYaml
import Earshot
import Foundation

/// The sizes a scene may have, checked before anything is built from it: a scene beyond them is
/// refused with a FILE:LINE:COLUMN error naming the limit, in time linear in the file's size.
///
/// | limit | value |
/// |---|---|
/// | file size | 64 MiB |
/// | nesting of lists and mappings | 64 levels |
/// | YAML nodes, aliases expanded | 8,000,000 |
/// | events | 1,000,000 |
/// | emitters, clips, music tracks (each) | 10,000 |
/// | reverb zones | 256 |
/// | sounds | 10,000 |
/// | snapshots | 256 |
/// | buses | 64 (with the five built-in ones) |
/// | VCAs | 64, each over at most 64 buses |
/// | waypoints in one path | 100,000 |
/// | files a scene or bank includes, in all (`include:`) | 64 |
/// | includes nested in includes | 8 |
/// | runs of `after:` and `at: { marker: }` events, in all | 1,000,000 |
///
/// ```swift
/// print(SceneLimits.maxEvents)   // 1000000
/// ```
public enum SceneLimits {
    public static let maxFileBytes = 64 << 20
    public static let maxDepth = 64
    public static let maxNodes = 8_000_000
    public static let maxEvents = 1_000_000
    /// The most times a scene's `after:` and `at: { marker: }` events may run in all: each runs
    /// once per run of its play, times — at a marker — that marker's passes (its count in the
    /// clip × the play's `loops` + 1). `validate` refuses a scene over it, which `render` could
    /// not finish.
    public static let maxScheduledFollowUps = 1_000_000
    public static let maxEmitters = 10_000
    public static let maxClips = 10_000
    public static let maxMusic = 10_000
    public static let maxZones = 256
    /// Ambisonic beds a scene or bank may define (`beds:`).
    public static let maxBeds = 64
    public static let maxWaypoints = 100_000
    public static let maxSounds = 10_000
    public static let maxSnapshots = 256
    public static let maxBuses = 64
    /// The most VCAs (`vcas:`) a scene or a bank may define: the engine's `VCA.maxCount`.
    public static let maxVCAs = VCA.maxCount
    /// The most files one scene or bank reads through `include:`, counting nested ones.
    public static let maxIncludes = 64
    /// The deepest chain of includes (a bank that includes a bank that includes …).
    public static let maxIncludeDepth = 8

    /// Top-level keys whose entries are counted while scanning: the limit, the word, and how
    /// many YAML nodes make one entry (a mapping's key and value; a list's item).
    static let topLimits: [String: (limit: Int, what: String, perEntry: Int)] = [
        "events": (maxEvents, "events", 1), "emitters": (maxEmitters, "emitters", 2), "clips": (maxClips, "clips", 2),
        "music": (maxMusic, "music tracks", 2), "zones": (maxZones, "zones", 2),
        "sounds": (maxSounds, "sounds", 2), "snapshots": (maxSnapshots, "snapshots", 2),
        "buses": (maxBuses, "buses", 2), "vcas": (maxVCAs, "VCAs", 2), "beds": (maxBeds, "beds", 2),
    ]

    /// A problem the pre-scan found: where, and what.
    struct Problem {
        var line: Int
        var column: Int
        var reason: String
    }

    /// Walks the YAML text's events with libyaml's own (iterative) parser before any tree is
    /// built, so that no input can overflow the stack of a recursive composer: refuses nesting
    /// deeper than ``maxDepth`` and documents whose nodes — aliases counted as what they repeat
    /// (a "billion laughs" document) — exceed ``maxNodes``. Syntax errors are left to the
    /// composer, which reports them with their positions.
    static func prescan(_ text: String) -> Problem? {
        var utf8 = Array(text.utf8)
        if utf8.isEmpty { return nil }
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return nil }
        defer { yaml_parser_delete(&parser) }
        return utf8.withUnsafeMutableBufferPointer { buffer -> Problem? in
            guard let base = buffer.baseAddress else { return nil }
            yaml_parser_set_input_string(&parser, base, buffer.count)
            // Nodes below each open collection, and the size of each anchored node.
            var stack: [(count: Int, anchor: String?)] = []
            // The top-level mapping's keys, and the direct children of the collection under the
            // key being read: `events`, `emitters` … are counted before anything is built.
            var topChildren = 0, topKey = "", counted: (limit: Int, what: String, perEntry: Int)? = nil, entries = 0
            var anchors: [String: Int] = [:]
            var total = 0
            func add(_ n: Int) {
                if stack.isEmpty {
                    total = min(total + n, Int.max / 2)
                } else {
                    stack[stack.count - 1].count = min(stack[stack.count - 1].count + n, Int.max / 2)
                }
            }
            // One more entry under a counted top-level key: the problem once past its limit.
            func countEntry(line: Int, column: Int) -> Problem? {
                guard let c = counted else { return nil }
                entries += 1
                guard entries / c.perEntry > c.limit else { return nil }
                return Problem(
                    line: line, column: column, reason: "more than \(c.limit) \(c.what) (the most a scene may have)")
            }
            var event = yaml_event_t()
            while true {
                guard yaml_parser_parse(&parser, &event) == 1 else { return nil }  // a syntax error: the composer says where
                defer { yaml_event_delete(&event) }
                let line = Int(event.start_mark.line) + 1, column = Int(event.start_mark.column) + 1
                switch event.type {
                case YAML_STREAM_END_EVENT:
                    return nil
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    if stack.count == 1 {
                        counted = Self.topLimits[topKey]
                        entries = 0
                        topChildren += 1
                    } else if stack.count == 2, let problem = countEntry(line: line, column: column) {
                        return problem
                    }
                    let anchorPointer =
                        event.type == YAML_SEQUENCE_START_EVENT
                        ? event.data.sequence_start.anchor : event.data.mapping_start.anchor
                    stack.append((1, anchorPointer.map { String(cString: $0) }))
                    if stack.count > maxDepth {
                        return Problem(
                            line: line, column: column,
                            reason: "lists and mappings nest deeper than \(maxDepth) levels (the most a scene may have)"
                        )
                    }
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    guard let done = stack.popLast() else { continue }
                    if let anchor = done.anchor { anchors[anchor] = done.count }
                    add(done.count)
                case YAML_SCALAR_EVENT:
                    if let a = event.data.scalar.anchor { anchors[String(cString: a)] = 1 }
                    if stack.count == 1 {
                        if topChildren % 2 == 0, let v = event.data.scalar.value {
                            topKey = String(cString: v)
                        }
                        topChildren += 1
                    } else if stack.count == 2, let problem = countEntry(line: line, column: column) {
                        return problem
                    }
                    add(1)
                case YAML_ALIAS_EVENT:
                    let name = event.data.alias.anchor.map { String(cString: $0) } ?? ""
                    if stack.count == 1 { topChildren += 1 } else if stack.count == 2, counted != nil { entries += 1 }
                    add(anchors[name] ?? 1)
                default:
                    break
                }
                if total + stack.reduce(0, { $0 + $1.count }) > maxNodes {
                    return Problem(
                        line: line, column: column,
                        reason: "more than \(maxNodes) YAML nodes once aliases are expanded (the most a scene may have)"
                    )
                }
            }
        }
    }

    /// What reading a scene, a bank or an included file gave (``readText(_:limit:)``).
    enum TextFile {
        case text(String)
        /// More than `limit` bytes: `size` is what `stat` said, or the bytes read when it said less.
        case tooLarge(size: Int, limit: Int)
        case unreadable(EarshotError)
        case notUTF8
    }

    /// The text of the file at `path`, read to its end but never past `limit` bytes: the bound is
    /// what was read, not what `stat` says (a `/proc` file reports 0 bytes and may hold
    /// gigabytes; `/proc/self/pagemap` has terabytes), so at most `limit + 1` bytes are read.
    static func readText(_ path: String, limit: Int) -> TextFile {
        do throws(EarshotError) {
            let bytes = try FileBytes.read(path: path, limit: max(0, limit), setting: "SceneLimits.maxFileBytes")
            guard let text = String(validating: bytes, as: UTF8.self) else { return .notUTF8 }
            return .text(text)
        } catch {
            if case .tooLarge(_, _, let size, let limit, _) = error { return .tooLarge(size: size, limit: limit) }
            return .unreadable(error)
        }
    }

    /// A size ``readText(_:limit:)`` refused, in words: what stat said, or "more than" the limit
    /// when reading stopped one byte past it.
    static func sizeText(_ size: Int, limit: Int) -> String {
        size == limit + 1 ? "more than \(limit) bytes" : "\(size) bytes"
    }

    /// Whether `path` is a regular file (after symlinks): what a scene, a bank or an include may
    /// be. A device (`/dev/zero`), a FIFO or a `/proc` file reports a size of 0 and would be read
    /// without end (or block), past every size limit.
    static func isRegularFile(_ path: String) -> Bool {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return (try? FileManager.default.attributesOfItem(atPath: resolved))?[.type] as? FileAttributeType
            == .typeRegular
    }
}
