import Foundation
import XCTest

/// The voice kernel (Sources/Earshot/Voices: the pool, its sources and slots) owns its state: no
/// file outside Voices/ writes a stored property of ``VoicePool`` or an element of its slot table
/// (`pool.x = …`, `pool.slots[i].gain = …`, a mutating call, `&pool.x`), nor reads one that the
/// kernel does not publish. The features read a voice through `voiceStates` and change it through
/// the pool's methods (``VoiceKernel``). Run it alone with
/// `swift test --disable-swift-testing --filter VoiceKernelBoundaryTests`.
final class VoiceKernelBoundaryTests: XCTestCase {
    func testNoFolderOutsideTheKernelWritesThePool() throws {
        let root = FolderBoundaryTests.sourcesRoot()
        var stored = try FolderBoundaryTests.storedProperties(of: "VoicePool", in: root.appendingPathComponent("Voices/VoicePool.swift"))
        XCTAssertGreaterThan(stored.count, 10, "the scan read VoicePool's fields")
        stored.insert("slots")   // a constant reference to the table whose elements are the voices
        var found: [String] = []
        var folders = 0
        for dir in try Self.folders(below: root) where dir.lastPathComponent != "Voices" {
            folders += 1
            found += try FolderBoundaryTests.coreWrites(in: dir, folder: dir.path.replacingOccurrences(of: root.path + "/", with: ""),
                                                        stored: stored, receiver: "pool")
        }
        XCTAssertGreaterThan(folders, 10, "the scan read the feature folders")
        XCTAssertEqual(found, [], "writes into the voice pool's state from outside Voices/: give the pool a method")
    }

    /// No file outside Voices/ reads the pool's internals either: its stored properties and the
    /// tables it keeps (slots, emitters, the timeline) are the kernel's; a feature, the engine's
    /// frame and the audio clock read through the kernel's read-only surface — the properties
    /// ``VoiceKernel`` lists (`voiceStates`, `live`, `busPaused`, …) and the pool's methods and
    /// computed answers (`startAudioTime(ofSlot:)`, `environment(ofEmitter:)`, `needsService`).
    func testNoFolderOutsideTheKernelReadsItsInternals() throws {
        let root = FolderBoundaryTests.sourcesRoot()
        let internals = try Self.poolInternals(root)
        XCTAssertTrue(internals.isSuperset(of: ["slots", "timeline", "liveStarts", "serviceNeeded", "pendingStarts", "emitterEnvironment"]),
                      "the scan read VoicePool's internals: \(internals.sorted())")
        XCTAssertFalse(internals.contains("voiceStates"), "the kernel's read-only surface is allowed")
        var found: [String] = []
        for dir in try Self.folders(below: root) where dir.lastPathComponent != "Voices" {
            found += try Self.poolReads(in: dir, folder: dir.path.replacingOccurrences(of: root.path + "/", with: ""), internals: internals)
        }
        XCTAssertEqual(found, [], "reads of the voice pool's internals from outside Voices/: read through VoiceKernel or a pool method")
    }

    /// The read scan finds planted reads of internals and passes the kernel's surface.
    func testScannerCatchesPlantedPoolReads() throws {
        let source = """
            func f(core: EngineCore, pool: VoicePool) {
                let rate = pool.slots[i].clipRate
                let t = core.pool.timeline.startAudio[i]   // pool.live in a comment is no read
                let g = pool.voiceStates[i].gain + Float(pool.live.count)
                if pool.needsService { pool.service(now: 0, lookahead: 0) }
                let e = core.pool.emitterEnvironment[3]
            }
            """
        let found = try FolderBoundaryTests.withPlanted(source) { dir in
            try Self.poolReads(in: dir, folder: "Planted", internals: ["slots", "timeline", "emitterEnvironment", "serviceNeeded"])
        }
        XCTAssertEqual(found, ["Planted/F.swift:2: pool.slots", "Planted/F.swift:3: pool.timeline",
                               "Planted/F.swift:6: pool.emitterEnvironment"])
    }

    /// The pool's internals: its stored properties and the table views it keeps (`slots`, the
    /// emitter columns), less the properties ``VoiceKernel`` publishes read-only.
    static func poolInternals(_ root: URL) throws -> Set<String> {
        var names = try FolderBoundaryTests.storedProperties(of: "VoicePool", in: root.appendingPathComponent("Voices/VoicePool.swift"))
        names.formUnion(["emitters", "emitterSpatial", "emitterEnvironment"])
        // Its constants too (`let`): references to the tables it keeps (slots, timeline, …).
        let pool = try String(contentsOf: root.appendingPathComponent("Voices/VoicePool.swift"), encoding: .utf8)
        let constant = try NSRegularExpression(pattern: #"^    (?:[@\w()]+ )*let (\w+)"#, options: .anchorsMatchLines)
        for m in constant.matches(in: pool, range: NSRange(pool.startIndex..., in: pool)) {
            if let r = Range(m.range(at: 1), in: pool) { names.insert(String(pool[r])) }
        }
        let kernel = try String(contentsOf: root.appendingPathComponent("Voices/VoiceKernel.swift"), encoding: .utf8)
        let declared = try NSRegularExpression(pattern: #"^\s*var (\w+)\s*:"#, options: .anchorsMatchLines)
        for m in declared.matches(in: kernel, range: NSRange(kernel.startIndex..., in: kernel)) {
            if let r = Range(m.range(at: 1), in: kernel) { names.remove(String(kernel[r])) }
        }
        return names
    }

    /// `Folder/File.swift:line: pool.name` for each use through `pool.` (or `core.pool.`) of one
    /// of `internals` in the Swift files of `dir`, comments left out.
    static func poolReads(in dir: URL, folder: String, internals: Set<String>) throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".swift") }.sorted()
        let use = try NSRegularExpression(pattern: #"\bpool\.(\w+)"#)
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = String(line).components(separatedBy: "//").first ?? ""
                for m in use.matches(in: code, range: NSRange(code.startIndex..., in: code)) {
                    guard let r = Range(m.range(at: 1), in: code), internals.contains(String(code[r])) else { continue }
                    found.append("\(folder)/\(file):\(n + 1): pool.\(code[r])")
                }
            }
        }
        return found
    }

    /// The scan finds planted writes through `pool.` (and `core.pool.`) and passes reads and calls.
    func testScannerCatchesPlantedPoolWrites() throws {
        let source = """
            func f(core: EngineCore, pool: VoicePool) {
                pool.slots[i].gain = 0
                core.pool.serviceNeeded = true
                let g = pool.voiceStates[i].gain
                pool.setGain(ofSlot: i, g)
                pool.live.append(3)
            }
            """
        let found = try FolderBoundaryTests.withPlanted(source) { dir in
            try FolderBoundaryTests.coreWrites(in: dir, folder: "Planted", stored: ["slots", "serviceNeeded", "live"],
                                             receiver: "pool")
        }
        XCTAssertEqual(found, ["Planted/F.swift:2: pool.slots", "Planted/F.swift:3: pool.serviceNeeded",
                               "Planted/F.swift:6: pool.live"])
    }

    /// Every folder below `root` holding Swift files (Music/Adaptive too).
    static func folders(below root: URL) throws -> [URL] {
        var dirs = Set<URL>()
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            if url.pathExtension == "swift" { dirs.insert(url.deletingLastPathComponent().standardizedFileURL) }
        }
        return dirs.sorted { $0.path < $1.path }
    }
}
