import Earshot
import Foundation
import XCTest

/// Markers read from files written by python3 (WAV, CAF: no encoder here writes marker chunks;
/// see ``MarkerFiles``) and by ffmpeg (Ogg Vorbis chapter comments, RF64 audio), through every
/// door: ``MarkerReader`` alone, ``ClipDecoder/inspect(path:)`` and `inspect(data:)`.
final class MarkerReaderTests: XCTestCase {
    private var tool: FFmpegTool!

    override func setUpWithError() throws { tool = try FFmpegTool() }
    override func tearDown() { tool = nil }

    /// The same markers from a path, from memory, and from the reader alone.
    private func markers(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> ClipFileInfo {
        let info = try ClipDecoder.inspect(path: path)
        let bytes = try FileBytes.read(path: path)
        let fromData = try ClipDecoder.inspect(data: bytes, name: path)
        XCTAssertEqual(fromData.markers, info.markers, "path and memory", file: file, line: line)
        XCTAssertEqual(fromData.markersUnreadable, info.markersUnreadable, file: file, line: line)
        if info.markersUnreadable == nil {
            let alone = try MarkerReader.read(path: path, frameCount: info.frames ?? 0)
            XCTAssertEqual(alone.markers, info.markers, "MarkerReader alone", file: file, line: line)
        }
        return info
    }

    /// The file: cue points at 0.25 and 0.75 s are frames 12,000 and 36,000 at 48 kHz, and
    /// exactly 0.25 × rate and 0.75 × rate at the other rates; names from labl, a region length
    /// from ltxt, a smpl loop named by its cue point.
    func testWAVCuePointsLabelsRegionsAndLoopsAtEveryRate() throws {
        for rate in [48_000, 44_100, 32_000, 96_000, 8_000] {
            let quarter = rate / 4, threeQuarters = rate * 3 / 4, tenth = rate / 10
            let path = tool.path("cues-\(rate).wav")
            var spec = MarkerFiles.Spec(rate: rate, frames: rate)
            spec.cues = [MarkerFiles.Cue(id: 1, frame: quarter, name: "hit"),
                         MarkerFiles.Cue(id: 2, frame: threeQuarters, name: "line", length: tenth),
                         MarkerFiles.Cue(id: 3, frame: rate / 2)]
            spec.loops = [MarkerFiles.Loop(id: 2, start: threeQuarters, end: threeQuarters + tenth - 1)]
            try MarkerFiles.write(spec, to: path)
            let info = try markers(path)
            XCTAssertEqual(info.frames, rate)
            XCTAssertNil(info.markersUnreadable)
            XCTAssertEqual(info.markers, [
                Marker(name: "hit", frame: quarter, kind: .cue, id: 1),
                Marker(name: "", frame: rate / 2, kind: .cue, id: 3),
                Marker(name: "line", frame: threeQuarters, length: tenth, kind: .region, id: 2),
                Marker(name: "line", frame: threeQuarters, length: tenth, kind: .loop, id: 2),
            ], "at \(rate) Hz")
            XCTAssertEqual(info.markers[0].time(sampleRate: info.sampleRate), 0.25, "at \(rate) Hz")
            XCTAssertEqual(info.markers[2].time(sampleRate: info.sampleRate), 0.75, "at \(rate) Hz")
            // The audio is unaffected by the chunks after it.
            XCTAssertEqual(try ClipDecoder.decode(path: path).frameCount, rate)
        }
        XCTAssertEqual(Marker(name: "hit", seconds: 0.25, sampleRate: 48_000).frame, 12_000)
    }

    /// A cue point written with dwPosition only; a Latin-1 name; a name over the limit cut on a
    /// character boundary; cue points past the end left out; a loop past the end shortened.
    func testWAVEdgesPositionOnlyLatin1LongNamesAndPastTheEnd() throws {
        let path = tool.path("edges.wav")
        var spec = MarkerFiles.Spec(rate: 48_000, frames: 48_000)
        let long = String(repeating: "é", count: 600)   // 1,200 bytes of UTF-8
        spec.cues = [MarkerFiles.Cue(id: 1, frame: 4_800, name: "early", positionOnly: true),
                     MarkerFiles.Cue(id: 2, frame: 9_600, nameHex: "636166e9"),   // "café" in Latin-1
                     MarkerFiles.Cue(id: 3, frame: 14_400, name: long),
                     MarkerFiles.Cue(id: 4, frame: 48_000, name: "end"),
                     MarkerFiles.Cue(id: 5, frame: 48_001, name: "past"),
                     MarkerFiles.Cue(id: 6, frame: 4_000_000_000, name: "far")]
        spec.loops = [MarkerFiles.Loop(id: 9, start: 40_000, end: 60_000), MarkerFiles.Loop(id: 8, start: 500, end: 100)]
        try MarkerFiles.write(spec, to: path)
        let info = try markers(path)
        XCTAssertNil(info.markersUnreadable)
        XCTAssertEqual(info.markers.map(\.name), ["early", "café", String(repeating: "é", count: 512), "", "end"])
        XCTAssertEqual(info.markers.map(\.frame), [4_800, 9_600, 14_400, 40_000, 48_000])
        XCTAssertEqual(info.markers[3].length, 8_000, "the loop is shortened to end with the audio")
        XCTAssertEqual(info.markersLeftOut, 3, "two cue points past the end and a loop ending before it starts")
        XCTAssertEqual(info.markersShortened, 1)
    }

    /// A malformed cue chunk (a count its size cannot hold) makes the markers unreadable, with the
    /// reason; the file is still described, decoded and loaded as a clip.
    func testMalformedCueChunkLeavesTheAudioPlayable() throws {
        let path = tool.path("lying.wav")
        var spec = MarkerFiles.Spec(rate: 48_000, frames: 4_800)
        spec.cues = [MarkerFiles.Cue(id: 1, frame: 100, name: "a")]
        spec.cueCount = 0x7FFF_FFFF
        try MarkerFiles.write(spec, to: path)
        let info = try markers(path)
        XCTAssertEqual(info.frames, 4_800)
        XCTAssertEqual(info.markers, [])
        let reason = try XCTUnwrap(info.markersUnreadable)
        XCTAssertTrue(reason.contains("cue chunk claims 2147483647 entries"), reason)
        XCTAssertThrowsError(try MarkerReader.read(path: path, frameCount: 4_800)) { error in
            guard case EarshotError.malformedFile = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try ClipDecoder.decode(path: path).frameCount, 4_800)
    }

    /// RF64 (ffmpeg `-rf64 always`: a data chunk of size 0xFFFFFFFF and the real size in ds64):
    /// the cue chunk after the audio is found through the ds64 size.
    func testRF64CuePointsAfterTheData() throws {
        let source = tool.path("source.wav")
        try tool.run(["-f", "lavfi", "-i", "sine=f=440:r=48000:d=1", "-c:a", "pcm_s16le", "-rf64", "always", source])
        XCTAssertEqual(Array(try FileBytes.readPrefix(path: source, count: 4)), Array("RF64".utf8))
        let path = tool.path("cues.rf64.wav")
        var spec = MarkerFiles.Spec(rate: 48_000, frames: 48_000, source: source)
        spec.cues = [MarkerFiles.Cue(id: 1, frame: 12_000, name: "hit"), MarkerFiles.Cue(id: 2, frame: 36_000, name: "line")]
        try MarkerFiles.write(spec, to: path)
        let info = try markers(path)
        XCTAssertEqual(info.frames, 48_000)
        XCTAssertEqual(info.markers.map(\.frame), [12_000, 36_000])
        XCTAssertEqual(info.markers.map(\.name), ["hit", "line"])
    }

    /// RIFX (a big-endian WAV, written by sox -B): the marker chunks' fields are big-endian too.
    func testRIFXBigEndianMarkerChunks() throws {
        guard let sox = FFmpegTool.which("sox") else { throw XCTSkip("sox is not installed") }
        let source = tool.path("source-rifx.wav")
        _ = try FFmpegTool.run(sox, ["-D", "-n", "-r", "48000", "-c", "1", "-b", "16", "-B", source, "synth", "1", "sine", "440"])
        XCTAssertEqual(Array(try FileBytes.readPrefix(path: source, count: 4)), Array("RIFX".utf8))
        let path = tool.path("cues.rifx.wav")
        var spec = MarkerFiles.Spec(rate: 48_000, frames: 48_000, source: source)
        spec.cues = [MarkerFiles.Cue(id: 1, frame: 12_000, name: "hit"), MarkerFiles.Cue(id: 2, frame: 36_000, name: "line", length: 2_400)]
        spec.loops = [MarkerFiles.Loop(id: 1, start: 12_000, end: 12_479)]
        try MarkerFiles.write(spec, to: path)
        let info = try markers(path)
        XCTAssertEqual(info.frames, 48_000)
        XCTAssertEqual(info.markers, [
            Marker(name: "hit", frame: 12_000, kind: .cue, id: 1),
            Marker(name: "hit", frame: 12_000, length: 480, kind: .loop, id: 1),
            Marker(name: "line", frame: 36_000, length: 2_400, kind: .region, id: 2),
        ])
    }

    /// CAF `mark` markers and `regn` regions named by `strg`, read by CAFReader's walk; the audio
    /// decodes as before.
    func testCAFMarkAndRegnChunks() throws {
        let path = tool.path("marks.caf")
        var spec = MarkerFiles.Spec(kind: "caf", rate: 44_100, frames: 44_100)
        spec.marks = [MarkerFiles.CAFMark(id: 1, frame: 11_025), MarkerFiles.CAFMark(id: 2, frame: 33_075), MarkerFiles.CAFMark(id: 7, frame: 50_000)]
        spec.regions = [MarkerFiles.CAFRegion(id: 3, start: 22_050, end: 26_460)]
        spec.strings = ["1": "hit", "2": "line", "3": "chorus"]
        try MarkerFiles.write(spec, to: path)
        let info = try markers(path)
        XCTAssertEqual(info.container, "CAF")
        XCTAssertNil(info.markersUnreadable)
        XCTAssertEqual(info.markers, [
            Marker(name: "hit", frame: 11_025, kind: .cue, id: 1),
            Marker(name: "chorus", frame: 22_050, length: 4_410, kind: .region, id: 3),
            Marker(name: "line", frame: 33_075, kind: .cue, id: 2),
        ])
        XCTAssertEqual(info.markersLeftOut, 1, "the marker at frame 50,000 is past the end")
        XCTAssertEqual(try CAFReader.decode(path: path).frameCount, 44_100)
    }

    /// A CAF that libsndfile decodes (a-law, written by ffmpeg) has its markers read too: the
    /// chunk walk does not depend on the encoding.
    func testCAFMarkersWhateverTheEncoding() throws {
        let source = tool.path("alaw.caf")
        try tool.run(["-f", "lavfi", "-i", "sine=f=440:r=8000:d=1", "-c:a", "pcm_alaw", source])
        let path = tool.path("alaw-marks.caf")
        var spec = MarkerFiles.Spec(kind: "caf", rate: 8_000, frames: 8_000, source: source)
        spec.marks = [MarkerFiles.CAFMark(id: 1, frame: 2_000)]
        spec.strings = ["1": "hit"]
        try MarkerFiles.write(spec, to: path)
        let info = try markers(path)
        XCTAssertEqual(info.codec.lowercased().contains("law"), true, info.codec)
        XCTAssertEqual(info.frames, 8_000)
        XCTAssertEqual(info.markers, [Marker(name: "hit", frame: 2_000, kind: .cue, id: 1)])
        XCTAssertEqual(try ClipDecoder.decode(path: path).frameCount, 8_000)
    }

    /// Ogg Vorbis chapter comments written by ffmpeg: exact frames at 44.1 kHz, UTF-8 names,
    /// a chapter whose time does not parse left out.
    func testOggVorbisChapterComments() throws {
        let path = tool.path("chapters.ogg")
        try tool.run(["-f", "lavfi", "-i", "sine=f=440:r=44100:d=1",
                      "-metadata", "CHAPTER000=00:00:00.250", "-metadata", "CHAPTER000NAME=hit",
                      "-metadata", "CHAPTER001=00:00:00.75", "-metadata", "CHAPTER001NAME=läuft",
                      "-metadata", "chapter002=0:00:00.5", "-metadata", "CHAPTER003=soon",
                      "-c:a", "libvorbis", path])
        let info = try markers(path)
        XCTAssertEqual(info.sampleRate, 44_100)
        XCTAssertEqual(info.markers, [
            Marker(name: "hit", frame: 11_025, kind: .cue, id: 0),
            Marker(name: "", frame: 22_050, kind: .cue, id: 2),
            Marker(name: "läuft", frame: 33_075, kind: .cue, id: 1),
        ])
        XCTAssertEqual(info.markersLeftOut, 1, "CHAPTER003=soon")
    }
}
