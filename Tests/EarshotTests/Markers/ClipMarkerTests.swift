import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Markers on loaded clips: read from the file by path and from memory, given in code, refused
/// outside the clip, and — heard through the loopback device — on the very frames where the
/// clip's sound is.
final class ClipMarkerTests: XCTestCase {
    private var tool: FFmpegTool!

    override func setUpWithError() throws { tool = try FFmpegTool() }
    override func tearDown() { tool = nil }

    /// A WAV of silence with a click on each cue point (0.25 and 0.75 s at 48 kHz): the clip's
    /// markers are frames 12,000 and 36,000, and the rendered clicks sit at the markers' frames
    /// after the voice's first frame — at pitch 1.5 at two thirds of them (±1 frame; measured
    /// 12,000/36,000 and 8,000/24,000).
    func testClipMarkersAreWhereTheSoundIs() throws {
        let path = tool.path("clicks.wav")
        var spec = MarkerFiles.Spec(rate: 48_000, frames: 48_000)
        spec.cues = [MarkerFiles.Cue(id: 1, frame: 12_000, name: "hit"), MarkerFiles.Cue(id: 2, frame: 36_000, name: "line")]
        spec.clicks = [0, 12_000, 36_000]
        try MarkerFiles.write(spec, to: path)

        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let clip = try engine.loadClip(path: path)
        XCTAssertEqual(clip.markers.map(\.frame), [12_000, 36_000])
        XCTAssertEqual(clip.markers.map(\.name), ["hit", "line"])
        XCTAssertEqual(clip.markers.map { $0.time(sampleRate: clip.info.sampleRate) }, [0.25, 0.75])
        let fromData = try engine.loadClip(data: try FileBytes.read(path: path), name: "clicks.wav")
        XCTAssertEqual(fromData.markers, clip.markers)

        // At pitch 1 the clicks are the markers' frames after the voice's first frame; at pitch
        // 1.5 (OpenAL resamples) two thirds of them, to the frame: markers are in the file's
        // frames, so their times scale with the playback rate.
        for pitch: Float in [1, 1.5] {
            _ = try engine.play(clip, options: .init(pitch: pitch, placement: .pan(0)))
            let out = try engine.render(frames: 48_000)
            // The loudest frame of each click (left channel; stereo interleaved).
            var clicks: [Int] = []
            var f = 0
            while f < out.count / 2 {
                guard abs(out[2 * f]) > 0.1 else { f += 1; continue }
                let end = min(out.count / 2, f + 8)
                clicks.append((f..<end).max { abs(out[2 * $0]) < abs(out[2 * $1]) } ?? f)
                f = end + 100
            }
            XCTAssertEqual(clicks.count, 3, "pitch \(pitch): \(clicks)")
            guard clicks.count == 3 else { continue }
            for (k, m) in clip.markers.enumerated() {
                let expected = Double(m.frame) / Double(pitch)
                XCTAssertEqual(Double(clicks[k + 1] - clicks[0]), expected, accuracy: 1,
                               "pitch \(pitch): marker \(m.name) heard \(clicks[k + 1] - clicks[0]) frames after the start")
            }
            _ = try engine.render(frames: 48_000)   // the voice ends
        }
    }

    /// Markers given in code: sorted, checked against the clip, and `loadClip(path:markers:)`
    /// unloads the clip again when one is refused.
    func testMarkersGivenInCode() throws {
        let path = tool.path("tone.wav")
        try MarkerFiles.write(MarkerFiles.Spec(rate: 48_000, frames: 24_000), to: path)
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let clip = try engine.loadClip(path: path)
        XCTAssertEqual(clip.markers, [])
        let marked = try clip.withMarkers([Marker(name: "b", frame: 20_000), Marker(name: "a", seconds: 0.1, sampleRate: 48_000, lengthSeconds: 0.2)])
        XCTAssertEqual(marked.markers, [Marker(name: "a", frame: 4_800, length: 9_600), Marker(name: "b", frame: 20_000)])
        XCTAssertEqual(marked.markers[0].kind, .region)
        XCTAssertNotEqual(marked, clip, "markers are part of the handle's value")
        _ = try engine.play(marked)   // the same buffer plays
        XCTAssertEqual(try clip.withMarkers([Marker(name: "end", frame: 24_000)]).markers.count, 1, "the end of the clip is a place")

        for bad in [Marker(name: "past", frame: 24_001), Marker(name: "neg", frame: -1), Marker(name: "long", frame: 20_000, length: 4_001)] {
            XCTAssertThrowsError(try clip.withMarkers([bad]), bad.name) { error in
                guard case EarshotError.invalidArgument(let what) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(what.contains(bad.name), what)
            }
        }
        let given = try engine.loadClip(path: path, markers: [Marker(name: "x", frame: 100)])
        XCTAssertEqual(given.markers.map(\.name), ["x"])
        let before = engine.stats.clips
        XCTAssertThrowsError(try engine.loadClip(path: path, markers: [Marker(name: "y", frame: 99_999)]))
        XCTAssertEqual(engine.stats.clips, before, "the refused clip was unloaded")
    }

    /// A file whose marker chunk is malformed loads as a clip without markers (and plays).
    func testMalformedMarkersDoNotFailTheClip() throws {
        let path = tool.path("lying.wav")
        var spec = MarkerFiles.Spec(rate: 48_000, frames: 4_800)
        spec.cues = [MarkerFiles.Cue(id: 1, frame: 100, name: "a")]
        spec.cueCount = 1_000_000
        try MarkerFiles.write(spec, to: path)
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let clip = try engine.loadClip(path: path)
        XCTAssertEqual(clip.markers, [])
        XCTAssertEqual(clip.info.frameCount, 4_800)
        _ = try engine.play(clip, options: .init(placement: .pan(0)))
        let out = try engine.render(frames: 4_800)
        XCTAssertGreaterThan(Level.rms(out, channels: 2)[0], 0.05, "the clip plays")
    }
}
