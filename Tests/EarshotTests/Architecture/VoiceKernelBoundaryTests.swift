import Foundation
import XCTest

/// The voice kernel (Sources/Earshot/Voices: the pool, its sources and slots) owns its state: no
/// file outside Voices/ writes a stored property of ``VoicePool`` or an element of its slot table
/// (`pool.x = …`, `pool.slots[i].gain = …`, a mutating call, `&pool.x`). The features read a
/// voice through `voiceStates` and change it through the pool's methods (``VoiceKernel``). Run it
/// alone with `swift test --disable-swift-testing --filter VoiceKernelBoundaryTests`.
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

    /// The scan finds planted writes through `pool.` (and `core.pool.`) and passes reads and calls.
    func testScannerCatchesPlantedPoolWrites() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kernel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = """
            func f(core: EngineCore, pool: VoicePool) {
                pool.slots[i].gain = 0
                core.pool.serviceNeeded = true
                let g = pool.voiceStates[i].gain
                pool.setGain(ofSlot: i, g)
                pool.live.append(3)
            }
            """
        try source.write(to: dir.appendingPathComponent("F.swift"), atomically: true, encoding: .utf8)
        let found = try FolderBoundaryTests.coreWrites(in: dir, folder: "Planted", stored: ["slots", "serviceNeeded", "live"],
                                                       receiver: "pool")
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
