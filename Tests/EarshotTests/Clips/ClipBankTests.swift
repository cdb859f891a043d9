import Earshot
import EarshotMeasure
import Foundation
import XCTest

final class ClipBankTests: XCTestCase {
    private var tool: FFmpegTool!

    override func setUpWithError() throws {
        tool = try FFmpegTool()
    }

    override func tearDown() {
        tool = nil
    }

    /// A mono IMA4 CAF of `samples` frames (64 frames → 128 bytes of PCM16).
    private func makeClip(_ name: String, samples: Int = 6_400, frequency: Int = 440) throws -> String {
        try tool.synth(name, expression: "0.5*sin(2*PI*\(frequency)*t)", rate: 48_000, samples: samples, codec: "adpcm_ima_qt")
    }

    func testSameFileSharesOneBuffer() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let bank = ClipBank(engine: engine)
        let path = try makeClip("a.caf")
        let link = tool.path("link.caf")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let a = try bank.preload(name: "a", path: path)
        let b = try bank.preload(name: "b", path: link)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let c = try bank.preload(name: "c", data: bytes)
        let d = try bank.preload(name: "d", data: bytes)
        XCTAssertEqual(a, b)
        XCTAssertEqual(c, d)
        XCTAssertEqual(bank.clipCount, 2, "one buffer for the file, one for the same bytes in memory")
        XCTAssertEqual(bank.byteCount(named: "a"), 6_400 * 2)
        XCTAssertEqual(bank.totalBytes, 2 * 6_400 * 2)
        XCTAssertEqual(bank.restoreBytes, path.utf8.count + bytes.count)
        XCTAssertEqual(bank.names, ["a", "b", "c", "d"])
        // Loaded unpositioned, the same file is a different clip.
        XCTAssertNotEqual(try bank.preload(name: "a-flat", path: path, forPositioning: false), a)
        // A name cannot silently switch files.
        XCTAssertThrowsError(try bank.preload(name: "a", path: try makeClip("other.caf", frequency: 600))) { error in
            guard case EarshotError.invalidArgument = error else { return XCTFail("\(error)") }
        }

        // Unloading one of two names keeps the clip; the last one releases it.
        XCTAssertTrue(bank.unload(named: "a"))
        XCTAssertNotNil(bank.clip(named: "b"))
        _ = try engine.play(a)
        XCTAssertTrue(bank.unload(named: "b"))
        XCTAssertNil(bank.clip(named: "b"))
        XCTAssertThrowsError(try engine.play(a)) { XCTAssertEqual($0 as? EarshotError, .clipUnloaded) }
        bank.unloadAll()
        XCTAssertEqual(bank.clipCount, 0)
        XCTAssertEqual(bank.totalBytes, 0)
        XCTAssertFalse(bank.unload(named: "c"))
    }

    func testUnloadStopsVoicesPlayingTheClip() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let bank = ClipBank(engine: engine)
        let clip = try bank.preload(name: "loop", path: try makeClip("loop.caf"))
        let voice = try engine.play(clip, options: .init(loop: true))
        _ = try engine.render(frames: 480)
        XCTAssertTrue(voice.isPlaying)
        bank.unload(named: "loop")
        // The voice fades out over the engine's fade time (5 ms = 240 frames), then stops.
        let after = try engine.render(frames: 960)
        XCTAssertFalse(voice.isPlaying)
        XCTAssertEqual(Level.rms(Array(after.suffix(480 * 2)), channels: 2)[0], 0, accuracy: 1e-6)
        XCTAssertGreaterThan(Level.rms(Array(after.prefix(100 * 2)), channels: 2)[0], 0.01, "fading, not cut")
    }

    /// A stereo clip loaded unpositioned takes twice its PCM from the budget: its channels are
    /// uploaded as mono buffers too (a 2D stereo voice's balance), and the engine counts them.
    func testStereoClipCountsItsChannelBuffers() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        // 4,800 stereo PCM16 frames: 19,200 bytes of buffer, 38,400 with the channel buffers.
        let path = try tool.synth("wide.wav", expression: "0.5*sin(2*PI*440*t)|0.5*sin(2*PI*1000*t)",
                                  rate: 48_000, samples: 4_800, codec: "pcm_s16le")
        let other = try tool.synth("wide2.wav", expression: "0.5*sin(2*PI*300*t)|0.5*sin(2*PI*700*t)",
                                   rate: 48_000, samples: 4_800, codec: "pcm_s16le")
        // The budget holds one such clip and a half: the second evicts the first.
        let bank = ClipBank(engine: engine, byteBudget: 57_600)
        let wide = try bank.preload(name: "wide", path: path, forPositioning: false)
        XCTAssertEqual(wide.info.channels, 2)
        XCTAssertEqual(wide.info.byteCount, 19_200)
        XCTAssertEqual(wide.info.memoryBytes, 38_400)
        XCTAssertEqual(bank.byteCount(named: "wide"), 38_400)
        try bank.preload(name: "wide2", path: other, forPositioning: false)
        XCTAssertEqual(bank.names, ["wide2"], "two stereo clips are 76,800 bytes: over the budget")
        XCTAssertEqual(bank.evictionCount, 1)
        // 9,600 frames decode to 38,400 bytes, within the budget, but take 76,800: refused from
        // the header, before decoding, naming the budget.
        let long = try tool.synth("long.wav", expression: "0.5*sin(2*PI*440*t)|0.5*sin(2*PI*1000*t)",
                                  rate: 48_000, samples: 9_600, codec: "pcm_s16le")
        XCTAssertThrowsError(try bank.preload(name: "long", path: long, forPositioning: false)) { error in
            guard case EarshotError.tooLarge(_, _, let size, _, let setting) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(size, 76_800)
            XCTAssertEqual(setting, "ClipBank.byteBudget")
        }
        XCTAssertEqual(bank.names, ["wide2"], "nothing evicted for a clip that cannot fit")
    }

    func testBudgetEvictsLeastRecentlyUsedIdleClips() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        // Each clip is 12,800 bytes of PCM16; the budget holds two.
        let bank = ClipBank(engine: engine, byteBudget: 2 * 12_800)
        let a = try bank.preload(name: "a", path: try makeClip("a.caf", frequency: 300))
        try bank.preload(name: "b", path: try makeClip("b.caf", frequency: 400))
        XCTAssertEqual(bank.evictionCount, 0)
        // "a" is the least recently used but it is playing: "b" goes instead.
        _ = try engine.play(a, options: .init(loop: true))
        try bank.preload(name: "c", path: try makeClip("c.caf", frequency: 500))
        XCTAssertEqual(bank.names, ["a", "c"])
        XCTAssertEqual(bank.evictionCount, 1)
        XCTAssertEqual(bank.totalBytes, 2 * 12_800)
        XCTAssertFalse(bank.isOverBudget)
        // Touch "a" by lookup; with "a" still playing and "c" idle, "d" evicts "c".
        _ = bank.clip(named: "a")
        try bank.preload(name: "d", path: try makeClip("d.caf", frequency: 600))
        XCTAssertEqual(bank.names, ["a", "d"])
        // Both remaining clips busy: the budget is exceeded rather than cutting a playing sound.
        _ = try engine.play(try XCTUnwrap(bank.clip(named: "d")), options: .init(loop: true))
        try bank.preload(name: "e", path: try makeClip("e.caf", frequency: 700))
        XCTAssertEqual(bank.names, ["a", "d", "e"])
        XCTAssertTrue(bank.isOverBudget)
    }

    func testAsyncPreloadReportsProgress() async throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let bank = ClipBank(engine: engine)
        var requests: [ClipBank.Request] = []
        for i in 0..<5 {
            requests.append(.init(name: "clip\(i)", path: try makeClip("clip\(i).caf", frequency: 300 + 100 * i)))
        }
        requests.insert(.init(name: "missing", path: tool.path("missing.caf")), at: 2)
        var reports: [ClipBank.Progress] = []
        for await p in bank.preload(requests) { reports.append(p) }
        XCTAssertEqual(reports.map(\.done), [1, 2, 3, 4, 5, 6])
        XCTAssertTrue(reports.allSatisfy { $0.total == 6 })
        XCTAssertEqual(reports.filter { $0.error != nil }.map(\.name), ["missing"])
        XCTAssertEqual(reports[2].error, .fileNotFound(path: tool.path("missing.caf")))
        XCTAssertEqual(bank.clipCount, 5)

        // The synchronous batch reports the same way.
        var seen: [Int] = []
        let failures = bank.preload(requests) { seen.append($0.done) }
        XCTAssertEqual(seen, [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(failures.map(\.name), ["missing"])
        XCTAssertEqual(bank.clipCount, 5)
    }

    func testRebuildAfterDeviceLossReuploadsEveryClip() throws {
        let first = try TestSignals.loopbackEngine()
        let bank = ClipBank(engine: first)
        let path = try makeClip("keep.caf")
        let gone = try makeClip("gone.caf", frequency: 900)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        try bank.preload(name: "keep", path: path)
        try bank.preload(name: "memory", data: bytes)   // kept as encoded bytes for the rebuild
        try bank.preload(name: "gone", path: gone)
        try FileManager.default.removeItem(atPath: gone)
        first.shutdown()   // the device is lost

        let second = try TestSignals.loopbackEngine()
        defer { second.shutdown() }
        let failures = bank.rebuild(on: second)
        XCTAssertEqual(Array(failures.keys), ["gone"])
        XCTAssertEqual(bank.names, ["keep", "memory"])
        let clip = try XCTUnwrap(bank.clip(named: "keep"))
        _ = try second.play(clip)
        XCTAssertGreaterThan(Level.rms(try second.render(frames: 2_400), channels: 2)[0], 0.05)
        _ = try second.play(try XCTUnwrap(bank.clip(named: "memory")))
    }
}
