import Foundation
import XCTest

/// The path of `play(clip)` from the public call to `alSourcePlay`, as the Architecture article
/// gives it ("The path of a play"): the files whose functions, initialisers, accessors or computed
/// properties run on it, for a non-positional play on a loopback engine with no delay, no bus
/// curves and room in the pool. Reading a stored property does not count a file; plain values
/// are left out — `ResolvedPlay`, `PlayOptions`, `Clip`, `VoiceID`, `Vector3`, and likewise the
/// field accessors of `VoiceState`, `Bus`'s equality, `SpatialProperties()` and
/// `EnvironmentProperties.isValid` — and so are the three steps listed in
/// ``PlayPathTests/alsoRun`` (the lock primitive, and the placement push and the send router a
/// starting source goes through), which the rule's words would count: 12 files in 6 folders.
///
/// Each step names what its file defines and what it calls in the next: the test fails when a
/// step moves to another file, when the path grows past 8 files or 3 folders, or when the article
/// stops naming a file of it. Run it with `swift test --disable-swift-testing --filter PlayPathTests`.
final class PlayPathTests: XCTestCase {
    struct Step {
        let file: String
        /// Declarations the path runs, as written in `file`.
        let defines: [String]
        /// Calls `file` makes on the path (to the next steps).
        let calls: [String]
    }

    static let path: [Step] = [
        Step(file: "Voices/AudioEngine+Voices.swift", defines: ["public func play(_ clip: Clip"],
             calls: ["PlayResolver.checkRequest(", "withAL {", "core.play(try PlayResolver.resolve(", "ALCheck.after(\"play\")"]),
        Step(file: "Voices/PlayResolver.swift",
             defines: ["static func checkRequest(", "static func check(", "static func startFrame(", "static func checkPasses(",
                       "static func target(", "static func resolve("],
             calls: ["core.isLoaded(clip)", "core.busTable.buses.firstIndex(of: options.bus)", "core.startAudioTime("]),
        Step(file: "Engine/AudioEngine.swift", defines: ["func withAL<"],
             calls: ["context.makeCurrent(locked:", "context.pinToThread()", "ALContext.unpinThread()"]),
        Step(file: "Device/ALContext.swift",
             defines: ["func makeCurrent(locked", "func pinToThread()", "static func unpinThread()", "static func play(_ source: ALuint)"],
             calls: ["alSourcePlay(source)"]),
        Step(file: "Engine/EngineCore.swift",
             defines: ["func isLoaded(", "var now: Double", "func startAudioTime(delay: Double, mixTarget: Double)",
                       "func play(_ resolved: ResolvedPlay, markers: [Marker])"],
             calls: ["pool.start(resolved, now: now)", "pool.mark(id, markers: markers"]),
        Step(file: "Voices/VoicePool+Start.swift",
             defines: ["func start(_ r: ResolvedPlay, now: Double)", "func mark(_ id: VoiceID", "func startReal(",
                       "func audibility(of", "func catchUpPlayhead(", "func pushPitch(", "func pushSpatial(",
                       "func environment(ofSlot", "func effectiveGain("],
             calls: ["startReal(index, on: source, now: now)", "ALContext.play(source)"]),
        Step(file: "Voices/SlotTable.swift", defines: ["subscript(i: Int) -> Element", "func pointer(_ i: Int)"], calls: []),
        Step(file: "Device/ALErrorName.swift", defines: ["static func after(", "private static func consumeUnexpected("], calls: []),
    ]

    /// Issue 37's bound: 8 files in 3 folders. Sources start on the context they belong to
    /// (`ALContext.start`/`play`, the one place every source of the engine starts: voices, streams,
    /// a set's stems).
    static let maxFiles = 8, maxFolders = 3

    /// Also run on the path and left out of the count above: the lock primitive every AL section
    /// takes, the placement push a voice's source shares with streams, and the environment's send
    /// router, which gives every starting source its sends (a panned voice: none).
    static let alsoRun: [Step] = [
        Step(file: "Support/Locked.swift", defines: ["func withLock<"], calls: []),
        Step(file: "Spatial/SpatialProperties+Source.swift", defines: ["func apply(to source: ALuint"], calls: []),
        Step(file: "Environment/SendRouter.swift", defines: ["func apply(source: ALuint"], calls: []),
    ]

    /// What a play of a stereo clip without a position adds to the path (its channels on two
    /// sources, `pan` a balance: the Architecture article, "Several listeners and stereo images"):
    /// the image's file and the pair's, both in Voices/, and the two-source start in
    /// Device/ALContext.swift — no new folder.
    static let stereoPath: [Step] = [
        Step(file: "Voices/VoicePool+Start.swift", defines: [],
             calls: ["takePartner(index)", "loadPartner(index, partner)", "pushPairGains(index)", "ALContext.play(source, partner)",
                     "pushImage(index, to: source, heard: s)"]),
        Step(file: "Voices/VoicePool+Image.swift", defines: ["func pushImage("], calls: ["pushPartner(index, main: s)"]),
        Step(file: "Voices/VoicePool+Balance.swift",
             defines: ["func wantsPair(", "func sourcesNeeded(", "func takePartner(", "func loadPartner(", "func pushPartner(",
                       "func pushPairGains("],
             calls: ["freeSources.popLast()", "StereoImage.balanceGains("]),
        Step(file: "Spatial/StereoImage.swift", defines: ["static func balanceGains("], calls: []),
        Step(file: "Device/ALContext.swift", defines: ["static func play(_ first: ALuint, _ second: ALuint)"],
             calls: ["alSourcePlayv(2,"]),
    ]

    /// A 2D stereo play runs the mono path's files, the image's and the pair's (Voices/) and the
    /// balance law (Spatial/): 11 files in 4 folders, the value types' folder the only new one.
    func testAStereoPlayAddsOnlyTheImageAndThePair() throws {
        let root = FolderBoundaryTests.sourcesRoot()
        for step in Self.stereoPath {
            let text = try String(contentsOf: root.appendingPathComponent(step.file), encoding: .utf8)
            for d in step.defines { XCTAssertTrue(text.contains(d), "\(step.file) no longer defines \(d)") }
            for c in step.calls { XCTAssertTrue(text.contains(c), "\(step.file) no longer calls \(c)") }
        }
        let files = Set((Self.path + Self.stereoPath).map(\.file))
        let folders = Set(files.map { $0.split(separator: "/").first.map(String.init) ?? "" })
        XCTAssertLessThanOrEqual(files.count, Self.maxFiles + 3, "a stereo play runs through \(files.count) files")
        XCTAssertEqual(folders, ["Voices", "Engine", "Device", "Spatial"], "a stereo play runs through the folders \(folders.sorted())")
    }

    func testThePathStaysWhereTheArticleSaysAndWithinEightFilesInThreeFolders() throws {
        let root = FolderBoundaryTests.sourcesRoot()
        for step in Self.path + Self.alsoRun {
            let text = try String(contentsOf: root.appendingPathComponent(step.file), encoding: .utf8)
            for d in step.defines { XCTAssertTrue(text.contains(d), "\(step.file) no longer defines \(d)") }
            for c in step.calls { XCTAssertTrue(text.contains(c), "\(step.file) no longer calls \(c)") }
        }
        let files = Set(Self.path.map(\.file))
        let folders = Set(Self.path.map { $0.file.split(separator: "/").first.map(String.init) ?? "" })
        XCTAssertLessThanOrEqual(files.count, Self.maxFiles, "play(clip) runs through \(files.count) files")
        XCTAssertLessThanOrEqual(folders.count, Self.maxFolders, "play(clip) runs through the folders \(folders.sorted())")
        let article = try String(contentsOf: root.appendingPathComponent("Earshot.docc/Architecture.md"), encoding: .utf8)
        for file in files.sorted() {
            let name = file.split(separator: "/").last.map(String.init) ?? file
            XCTAssertTrue(article.contains(name), "the Architecture article does not name \(name) on the path of a play")
        }
    }

    /// What a play runs in the pool is in the start's file: no other file of the pool declares a
    /// step of it (a copy there would be a second version of the start).
    func testThePoolsStartHelpersAreDeclaredOnce() throws {
        let voices = FolderBoundaryTests.sourcesRoot().appendingPathComponent("Voices")
        let start = try XCTUnwrap(Self.path.first { $0.file == "Voices/VoicePool+Start.swift" })
        for file in try FileManager.default.contentsOfDirectory(atPath: voices.path) where file.hasPrefix("VoicePool") {
            guard file != "VoicePool+Start.swift" else { continue }
            let text = try String(contentsOf: voices.appendingPathComponent(file), encoding: .utf8)
            for d in start.defines { XCTAssertFalse(text.contains(d), "Voices/\(file) declares \(d), a step of the start") }
        }
    }
}
