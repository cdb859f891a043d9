import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// PCM CAF variants written by ffmpeg, packet tables, and path/memory equality.
final class CAFReaderTests: XCTestCase {
    func testPCMVariantsMatchFFmpeg() throws {
        let tool = try FFmpegTool()
        let expression = "0.8*sin(2*PI*440*t)+0.1*(random(0)*2-1)|0.6*sin(2*PI*1234*t)"
        for codec in ["pcm_s16be", "pcm_s16le", "pcm_s24le", "pcm_s32be", "pcm_f32le", "pcm_f64be", "pcm_s8", "pcm_s24be", "pcm_f32be"] {
            for stereo in [false, true] {
                let expr = stereo ? expression : String(expression.prefix { $0 != "|" })
                let caf = try tool.synth("\(codec)-\(stereo).caf", expression: expr, rate: 22_050, samples: 2_001, codec: codec)
                let audio = try CAFReader.decode(path: caf)
                let isFloat = codec.contains("_f")
                let reference = try tool.decodeRaw(caf, format: isFloat ? "f32le" : "s16le")
                XCTAssertEqual(audio.channels, stereo ? 2 : 1, codec)
                XCTAssertEqual(audio.frameCount, 2_001, codec)
                XCTAssertEqual(audio.sampleRate, 22_050, codec)
                if isFloat {
                    guard case .float32 = audio.samples else { return XCTFail("\(codec): expected float samples") }
                } else {
                    guard case .int16 = audio.samples else { return XCTFail("\(codec): expected 16-bit samples") }
                }
                XCTAssertTrue(audio.littleEndianBytes == reference, "\(codec) stereo=\(stereo): differs from ffmpeg's decode")
            }
        }
    }

    /// libsndfile reads CAF PCM too: the two readers agree (the cross-check the issue asks for).
    func testAgreesWithLibsndfileOnPCM() throws {
        let tool = try FFmpegTool()
        for codec in ["pcm_s16be", "pcm_s16le", "pcm_s24le", "pcm_s32be", "pcm_f32le"] {
            let caf = try tool.synth("\(codec).caf", expression: "0.7*sin(2*PI*300*t)", rate: 48_000, samples: 1_000, codec: codec)
            XCTAssertEqual(try CAFReader.decode(path: caf), try SndFileDecoder.decode(path: caf), codec)
        }
    }

    func testPacketTableTrimsPrimingAndRemainder() throws {
        let tool = try FFmpegTool()
        let source = try tool.synth("src.caf", expression: "0.5*sin(2*PI*440*t)", rate: 44_100, samples: 640, codec: "adpcm_ima_qt")
        let full = try CAFReader.decode(path: source)
        let parsed = try CAFReader.parse(path: source)
        XCTAssertEqual(parsed.packetCount, 10)
        XCTAssertNil(parsed.packetTable)
        let audio = Array(try Data(contentsOf: URL(fileURLWithPath: source)))[parsed.audioOffset..<(parsed.audioOffset + parsed.audioByteCount)]

        var b = CAFBuilder()
        b.chunk("desc", CAFBuilder.ima4())
        b.chunk("pakt", CAFBuilder.paktBody(packets: 10, valid: 600, priming: 30, remainder: 10))
        b.chunk("data", CAFBuilder.dataBody(Array(audio)))
        let trimmed = try CAFReader.decode(b.bytes, name: "pakt.caf")
        guard case .int16(let all) = full.samples, case .int16(let part) = trimmed.samples else { return XCTFail("not 16-bit") }
        XCTAssertEqual(part, Array(all[30..<630]))
    }

    func testChunksAreReadAndUnknownOnesSkipped() throws {
        var b = CAFBuilder()
        b.chunk("desc", CAFBuilder.pcm16(channels: 2))
        b.chunk("chan", [0, 0x65, 0, 2] + [UInt8](repeating: 0, count: 8))   // stereo layout tag, 0 descriptions
        b.chunk("kuki", [1, 2, 3])
        b.chunk("info", [0, 0, 0, 2] + Array("title\0Step\0artist\0Foley\0".utf8))
        b.chunk("zzzz", [UInt8](repeating: 0xAA, count: 100))
        b.chunk("data", CAFBuilder.dataBody(CAFBuilder.samplesBE([1, -1, 300, -300, 32767, -32768])))
        b.chunk("free", [UInt8](repeating: 0, count: 16))
        let file = try CAFReader.parse(b.bytes, name: "chunks.caf")
        XCTAssertEqual(file.info, ["title": "Step", "artist": "Foley"])
        XCTAssertEqual(file.channelLayoutTag, 0x0065_0002)
        XCTAssertEqual(file.magicCookieByteCount, 3)
        XCTAssertEqual(file.format.codecName, "pcm_s16be")
        let audio = try CAFReader.decode(b.bytes, name: "chunks.caf")
        XCTAssertEqual(audio.samples, .int16([1, -1, 300, -300, 32767, -32768]))
        XCTAssertEqual(audio.channels, 2)
    }

    func testDataSizeMinusOneRunsToEndOfFile() throws {
        var b = CAFBuilder()
        b.chunk("desc", CAFBuilder.pcm16())
        b.chunk("data", size: -1, CAFBuilder.dataBody(CAFBuilder.samplesBE([5, 6, 7])))
        XCTAssertEqual(try CAFReader.decode(b.bytes, name: "open.caf").samples, .int16([5, 6, 7]))
    }

    /// Every format decodes to the same samples from a path and from the same bytes in memory.
    func testPathAndMemoryGiveTheSameResult() throws {
        let tool = try FFmpegTool()
        let expr = "0.5*sin(2*PI*440*t)|0.4*sin(2*PI*550*t)"
        let files = [
            try tool.synth("a.caf", expression: expr, rate: 44_100, samples: 3_000, codec: "adpcm_ima_qt"),
            try tool.synth("b.caf", expression: expr, rate: 44_100, samples: 3_000, codec: "pcm_s24be"),
            try tool.synth("c.wav", expression: expr, rate: 44_100, samples: 3_000, codec: "pcm_s16le"),
            try tool.synth("d.aiff", expression: expr, rate: 44_100, samples: 3_000, codec: "pcm_s16be"),
            try tool.synth("e.flac", expression: expr, rate: 44_100, samples: 3_000, codec: "flac"),
            try tool.synth("f.ogg", expression: expr, rate: 44_100, samples: 3_000, codec: "libvorbis"),
            try tool.synth("g.wav", expression: expr, rate: 44_100, samples: 3_000, codec: "adpcm_ima_wav"),
            try tool.synth("h.wav", expression: expr, rate: 44_100, samples: 3_000, codec: "pcm_f32le"),
        ]
        for path in files {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let fromPath = try ClipDecoder.decode(path: path)
            let fromMemory = try ClipDecoder.decode(data: bytes, name: path)
            XCTAssertEqual(fromPath, fromMemory, path)
            XCTAssertEqual(fromPath.channels, 2, path)
            XCTAssertGreaterThanOrEqual(fromPath.frameCount, 2_900, path)
            XCTAssertEqual(try ClipDecoder.inspect(path: path), try ClipDecoder.inspect(data: bytes, name: path), path)
        }
    }

    /// vorbisfile and libsndfile both decode Ogg Vorbis through libvorbis: the same audio.
    func testVorbisFileAgreesWithLibsndfile() throws {
        let tool = try FFmpegTool()
        let ogg = try tool.synth("v.ogg", expression: "0.5*sin(2*PI*440*t)", rate: 44_100, samples: 8_000, codec: "libvorbis")
        let ours = try VorbisFileDecoder.decode(path: ogg)
        let theirs = try SndFileDecoder.decode(path: ogg)
        XCTAssertEqual(ours.frameCount, theirs.frameCount)
        let a = ours.floatSamples(), b = theirs.floatSamples()
        let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 1
        XCTAssertLessThan(worst, 1e-5)
        XCTAssertGreaterThan(Level.rms(a, channels: 1)[0], 0.3)
    }
}
