import Earshot
import EarshotMeasure
import XCTest

/// Gapless loop seams, measured on the loopback output: a 1.0 s sine of a whole number of cycles
/// looped twice must sound for exactly 3.0 s with no step or level dip at either seam.
final class MusicLoopTests: XCTestCase {
    private func checkSeamlessLoops(path: String, expectedFrames: Int?) throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: path)
        if let expectedFrames { XCTAssertEqual(track.frameCount, expectedFrames) }
        let n = track.frameCount
        track.numberOfLoops = 2
        try track.play()
        let out = MusicRender.left(try MusicRender.render(engine, seconds: 3.25, block: 1_024))

        // Exactly three plays of sound, then silence.
        XCTAssertEqual(MusicRender.lastSound(out), 3 * n - 1, "sound must end after exactly 3 × \(n) frames")
        XCTAssertEqual(Level.rms(out, (3 * n + 16)..<out.count), 0, accuracy: 1e-6)
        XCTAssertFalse(track.isPlaying)

        // No step at the seams larger than 1.5 × the stream's own largest step.
        let reference = MusicRender.maxStep(out, (n / 5)..<(4 * n / 5))
        XCTAssertGreaterThan(reference, 0.001)
        for seam in [n, 2 * n] {
            let step = MusicRender.maxStep(out, (seam - 200)..<(seam + 200))
            XCTAssertLessThanOrEqual(step, 1.5 * reference, "step at seam \(seam)")
        }

        // No dip in level: 10 ms windows (5 cycles of 500 Hz) across both seams stay within 0.5 dB.
        let window = 480
        let level = Level.rms(out, (n / 5)..<(n / 5 + 10 * window))
        var lo = Double.infinity
        for start in stride(from: n / 2, to: 3 * n - n / 2 - window, by: window / 4) {
            lo = min(lo, Level.rms(out, start..<(start + window)))
        }
        XCTAssertEqual(Level.dB(lo), Level.dB(level), accuracy: 0.5, "level dip across the seams")
    }

    func testWAVLoopsTwiceGaplessly() throws {
        let files = try MusicFixtures()
        try checkSeamlessLoops(path: try files.sineWAV("sine.wav"), expectedFrames: 48_000)
    }

    func testVorbisLoopsTwiceGaplessly() throws {
        let files = try MusicFixtures()
        try checkSeamlessLoops(path: try files.sineVorbis("sine.ogg"), expectedFrames: 48_000)
    }

    func testLoopRegionPlaysIntroLoopsAndOutro() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: try files.sineWAV("sine.wav"))
        // Region 0.25…0.75 s (whole cycles of 500 Hz): intro 0.25 + 3 × 0.5 + outro 0.25 = 2.0 s.
        try track.setLoopRegion(12_000..<36_000)
        track.numberOfLoops = 2
        try track.play()
        let out = MusicRender.left(try MusicRender.render(engine, seconds: 2.2, block: 1_024))
        XCTAssertEqual(MusicRender.lastSound(out), 96_000 - 1)
        let reference = MusicRender.maxStep(out, 2_000..<10_000)
        for seam in [36_000, 60_000] {
            XCTAssertLessThanOrEqual(MusicRender.maxStep(out, (seam - 200)..<(seam + 200)), 1.5 * reference)
        }
    }
}
