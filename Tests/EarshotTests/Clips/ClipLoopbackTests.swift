import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Clips heard through OpenAL's loopback device.
final class ClipLoopbackTests: XCTestCase {
    private func render(_ load: (AudioEngine) throws -> Clip, position: Vector3?) throws -> [Float] {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let clip = try load(engine)
        _ = try engine.play(clip, options: .init(placement: position.map { .spatial(SpatialProperties(position: $0)) } ?? .pan(0)))
        return try engine.render(frames: 6_000)
    }

    /// An IMA4 CAF loaded by path renders exactly like ffmpeg's PCM decode of it loaded as PCM.
    func testIMA4ClipRendersLikeItsPCMDecode() throws {
        let tool = try FFmpegTool()
        let caf = try tool.synth("clip.caf", expression: "0.6*sin(2*PI*523*t)+0.05*(random(0)*2-1)", rate: 48_000, samples: 4_800, codec: "adpcm_ima_qt")
        let raw = try tool.decodeRaw(caf, format: "s16le")
        let reference = raw.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let pcm = PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(reference))
        for position in [nil, Vector3(2, 0, -1)] {
            let fromIMA4 = try render({ try $0.loadClip(path: caf) }, position: position)
            let fromPCM = try render({ try $0.loadClip(pcm, name: "pcm") }, position: position)
            XCTAssertEqual(fromIMA4, fromPCM, "position \(String(describing: position))")
            XCTAssertGreaterThan(Level.rms(fromIMA4, channels: 2).max() ?? 0, 0.05)
        }
    }

    /// A stereo clip placed in 3D is heard as its mono downmix (the mean of its channels),
    /// however it was loaded; without a position it keeps its channels (StereoImageTests).
    func testStereoClipsAndPositioning() throws {
        // Left channel only: the mono downmix is half of it.
        let frames = 4_800
        var samples = [Int16](repeating: 0, count: frames * 2)
        for i in 0..<frames { samples[2 * i] = Int16(16_000 * sin(2 * Double.pi * 440 * Double(i) / 48_000)) }
        let stereo = PCMAudio(sampleRate: 48_000, channels: 2, samples: .int16(samples))
        let mono = stereo.downmixedToMono()
        XCTAssertEqual(mono.channels, 1)
        guard case .int16(let m) = mono.samples else { return XCTFail("not 16-bit") }
        XCTAssertEqual(m[100], Int16((Double(samples[200]) / 2).rounded()))

        let positioned = Level.rms(try render({ try $0.loadClip(stereo, name: "st") }, position: Vector3(3, 0, 0)), channels: 2)
        XCTAssertGreaterThan(Level.dB(positioned[1]) - Level.dB(positioned[0]), 20, "downmixed clip is placed to the right: \(positioned)")

        let unfolded = Level.rms(try render({ try $0.loadClip(stereo, name: "st", forPositioning: false) }, position: Vector3(3, 0, 0)), channels: 2)
        XCTAssertGreaterThan(Level.dB(unfolded[1]) - Level.dB(unfolded[0]), 20, "placed to the right too: \(unfolded)")
        let inPlace = Level.rms(try render({ try $0.loadClip(stereo, name: "st") }, position: nil), channels: 2)
        XCTAssertGreaterThan(Level.dB(inPlace[0]) - Level.dB(inPlace[1]), 20, "no position: its own left channel: \(inPlace)")
    }
}
