@testable import Earshot
import EarshotMeasure
import Foundation

/// Ambisonic files for the bed tests: plane waves of noise encoded with the SN3D real spherical
/// harmonics (AmbiX, or converted to FuMa), and diffuse fields, written by libsndfile
/// (``AudioFileWriter``) into a temporary directory.
final class BedFixtures {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-beds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// White noise in ±amplitude from a fixed LCG.
    static func noise(frames: Int, seed: UInt64, amplitude: Float = 0.25) -> [Float] {
        var state = seed &* 6364136223846793005 &+ 1442695040888963407
        return (0..<frames).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return (Float(state >> 40) / Float(1 << 24) * 2 - 1) * amplitude
        }
    }

    /// A plane wave of noise from `azimuth` degrees (0 ahead, 90 left), AmbiX, interleaved.
    static func planeWave(order: Int, azimuth: Double, seconds: Double, rate: Int = 48_000) -> [Float] {
        let s = noise(frames: Int(seconds * Double(rate)), seed: 7)
        let y = SphericalHarmonics.sn3d(order: order, azimuth: azimuth).map { Float($0) }
        return s.flatMap { v in y.map { $0 * v } }
    }

    /// Decorrelated noise in every channel (a diffuse field), AmbiX.
    static func diffuse(order: Int, seconds: Double, rate: Int = 48_000) -> [Float] {
        let k = AmbisonicFormat.channels(order: order), n = Int(seconds * Double(rate))
        let channels = (0..<k).map { noise(frames: n, seed: UInt64(100 + $0)) }
        var out = [Float](repeating: 0, count: n * k)
        for f in 0..<n { for c in 0..<k { out[f * k + c] = channels[c][f] } }
        return out
    }

    /// AmbiX → FuMa (the inverse of the engine's table).
    static func fuma(_ ambix: [Float], channels k: Int) -> [Float] {
        var out = [Float](repeating: 0, count: ambix.count)
        for f in 0..<(ambix.count / k) {
            for c in 0..<k { out[f * k + c] = ambix[f * k + AmbisonicFormat.fumaToACN[c]] / AmbisonicFormat.fumaToSN3D[c] }
        }
        return out
    }

    /// Writes interleaved float samples (32-bit float WAV, or the container `name` says).
    func write(_ samples: [Float], channels: Int, name: String, format: AudioFileWriter.Format = .f32) throws -> String {
        let p = path(name)
        let w = try AudioFileWriter(path: p, sampleRate: 48_000, channels: channels, format: format)
        try w.write(samples)
        try w.close()
        return p
    }

    /// RMS of left and right of interleaved stereo.
    static func leftRight(_ x: [Float]) -> (left: Double, right: Double) {
        (Level.rms(x, channel: 0, of: 2), Level.rms(x, channel: 1, of: 2))
    }

    /// Left over right in dB.
    static func balance(_ x: [Float]) -> Double {
        let (l, r) = leftRight(x)
        return Level.dB(l, over: r)
    }
}
