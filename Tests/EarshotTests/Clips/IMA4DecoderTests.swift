import Earshot
import Foundation
import XCTest

/// Earshot's IMA4 decode against ffmpeg's `adpcm_ima_qt` decode of vectors ffmpeg encoded.
final class IMA4DecoderTests: XCTestCase {
    struct Vector {
        var name: String
        var expression: String
        var rate: Int
        var samples: Int
    }

    static let vectors: [Vector] = [
        // Mono, several rates, lengths that end mid-packet, loud and quiet material.
        Vector(name: "mono-loud-44k", expression: "0.95*sin(2*PI*440*t)+0.04*(random(0)*2-1)", rate: 44_100, samples: 22_050 + 17),
        Vector(name: "mono-quiet-22k", expression: "0.002*sin(2*PI*300*t)+0.0005*(random(1)*2-1)", rate: 22_050, samples: 5_000),
        Vector(name: "mono-square-48k", expression: "0.99*sgn(sin(2*PI*150*t))", rate: 48_000, samples: 9_601),
        Vector(name: "mono-short-8k", expression: "0.5*sin(2*PI*1000*t)", rate: 8_000, samples: 33),
        Vector(name: "mono-noise-32k", expression: "0.9*(random(2)*2-1)", rate: 32_000, samples: 4_096),
        // Stereo: different material per channel.
        Vector(name: "stereo-loud-44k", expression: "0.9*sin(2*PI*440*t)|0.7*sgn(sin(2*PI*97*t))", rate: 44_100, samples: 11_025 + 5),
        Vector(name: "stereo-quiet-16k", expression: "0.001*sin(2*PI*200*t)|0.003*(random(3)*2-1)", rate: 16_000, samples: 3_210),
        Vector(name: "stereo-mixed-96k", expression: "0.99*(random(4)*2-1)|0.0001*sin(2*PI*50*t)", rate: 96_000, samples: 6_400),
    ]

    func testBitExactWithFFmpeg() throws {
        let tool = try FFmpegTool()
        for v in Self.vectors {
            let caf = try tool.synth("\(v.name).caf", expression: v.expression, rate: v.rate, samples: v.samples, codec: "adpcm_ima_qt")
            let reference = try tool.decodeRaw(caf, format: "s16le")
            let audio = try CAFReader.decode(path: caf)
            let channels = v.expression.contains("|") ? 2 : 1
            XCTAssertEqual(audio.channels, channels, v.name)
            XCTAssertEqual(audio.sampleRate, v.rate, v.name)
            // No pakt from ffmpeg: every packet decodes, so the length rounds up to 64 frames.
            XCTAssertEqual(audio.frameCount, (v.samples + 63) / 64 * 64, v.name)
            XCTAssertEqual(audio.littleEndianBytes.count, reference.count, v.name)
            XCTAssertTrue(audio.littleEndianBytes == reference, "\(v.name): decode differs from ffmpeg's at sample \(firstDifference(audio.littleEndianBytes, reference))")
        }
    }

    /// A packet whose preamble is within 127 of the running predictor with the same step index
    /// keeps the running predictor; otherwise the preamble resets it (ffmpeg's rule).
    func testRunningPredictorRule() throws {
        // Packet 0: predictor 0x0100, step 10, codes all 7 (max positive).
        // Packet 1: preamble equal to the running value rounded to 9 bits, same step → kept.
        var decoder = IMA4Decoder(channels: 1)
        var packet0 = [UInt8](repeating: 0x77, count: 34)
        packet0[0] = 0x01; packet0[1] = 0x0A
        var out0 = [Int16](repeating: 0, count: 64)
        try packet0.withUnsafeBytes { b in try out0.withUnsafeMutableBufferPointer { try decoder.decode(packets: b, count: 1, into: $0) } }
        XCTAssertEqual(out0.last, 32767, "64 maximal codes saturate")
        // Running state: predictor 32767, step index 88. Preamble 0x7F80 | 88 is within 127.
        var packet1 = [UInt8](repeating: 0x00, count: 34)
        packet1[0] = 0x7F; packet1[1] = 0x80 | 88
        var kept = decoder
        var out1 = [Int16](repeating: 0, count: 64)
        try packet1.withUnsafeBytes { b in try out1.withUnsafeMutableBufferPointer { try kept.decode(packets: b, count: 1, into: $0) } }
        // Code 0 adds step/8 = 32767/8 = 4095 to 32767 → stays clamped at 32767 from the kept predictor.
        XCTAssertEqual(out1[0], 32767)
        // Different step index → reset to the preamble's predictor 0x7F80 = 32640: first sample 32640 + 4095 clamps too,
        // so use a step that distinguishes: step 0 (7) → 32640 + 0 = 32640.
        var packet2 = [UInt8](repeating: 0x00, count: 34)
        packet2[0] = 0x7F; packet2[1] = 0x80
        var reset = decoder
        try packet2.withUnsafeBytes { b in try out1.withUnsafeMutableBufferPointer { try reset.decode(packets: b, count: 1, into: $0) } }
        XCTAssertEqual(out1[0], 32640)
    }

    func testStepIndexAbove88IsAnError() throws {
        var decoder = IMA4Decoder(channels: 1)
        var packet = [UInt8](repeating: 0, count: 34)
        packet[1] = 89
        var out = [Int16](repeating: 0, count: 64)
        XCTAssertThrowsError(try packet.withUnsafeBytes { b in try out.withUnsafeMutableBufferPointer { try decoder.decode(packets: b, count: 1, into: $0) } }) { error in
            guard case EarshotError.malformedFile(let what) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(what.contains("step index 89"), what)
        }
    }

    private func firstDifference(_ a: Data, _ b: Data) -> Int {
        let n = min(a.count, b.count)
        let ai = Array(a), bi = Array(b)
        for i in 0..<n where ai[i] != bi[i] { return i / 2 }
        return n / 2
    }
}
