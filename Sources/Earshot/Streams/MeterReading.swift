/// Levels of a stretch of audio, per channel, in dBFS (0 = full scale; −160 for silence).
///
/// `averagePower` is the RMS level and `peakPower` the largest absolute sample, both as
/// `20·log10(x)`: a sine of amplitude 0.5 reads peak −6.0 dB and average −9.0 dB. Read them from
/// ``MusicTrack/updateMeters()`` (a track's samples being played now) or
/// ``AudioEngine/outputMeters()`` (the master output of a loopback engine).
///
/// ```swift
/// let track = try engine.loadMusic(path: "Assets/Music/theme.ogg")
/// track.isMeteringEnabled = true
/// // … render or play a little …
/// track.updateMeters()
/// print(track.averagePower(forChannel: 0), track.peakPower(forChannel: 0))
/// ```
public struct MeterReading: Sendable, Equatable {
    /// The floor reported for silence (the value AVAudioPlayer uses).
    public static let silence: Float = -160
    /// RMS level per channel, dBFS.
    public var averagePower: [Float]
    /// Peak level per channel, dBFS.
    public var peakPower: [Float]
    /// Frames the reading covers (0 when nothing was playing).
    public var frames: Int

    public init(averagePower: [Float], peakPower: [Float], frames: Int) {
        self.averagePower = averagePower
        self.peakPower = peakPower
        self.frames = frames
    }

    /// A silent reading of `channels` channels.
    public static func silent(channels: Int) -> MeterReading {
        MeterReading(averagePower: Array(repeating: silence, count: channels),
                     peakPower: Array(repeating: silence, count: channels), frames: 0)
    }

    /// dBFS of a linear magnitude, floored at ``silence``.
    static func decibels(_ x: Double) -> Float {
        guard x > 0 else { return silence }
        return max(silence, Float(20 * log10Double(x)))
    }

    /// Accumulates sums of squares and peaks over interleaved blocks.
    struct Accumulator {
        var sumSquares: [Double]
        var peaks: [Float]
        var frames = 0

        init(channels: Int) {
            sumSquares = Array(repeating: 0, count: channels)
            peaks = Array(repeating: 0, count: channels)
        }

        /// Adds `frames` interleaved frames starting at frame `start` of `samples`.
        mutating func add(_ samples: UnsafeBufferPointer<Float>, start: Int, frames count: Int) {
            let c = sumSquares.count
            guard count > 0 else { return }
            for f in start..<(start + count) {
                for ch in 0..<c {
                    let v = samples[f * c + ch]
                    sumSquares[ch] += Double(v) * Double(v)
                    let a = abs(v)
                    if a > peaks[ch] { peaks[ch] = a }
                }
            }
            frames += count
        }

        var reading: MeterReading {
            guard frames > 0 else { return .silent(channels: sumSquares.count) }
            return MeterReading(
                averagePower: sumSquares.map { MeterReading.decibels(($0 / Double(frames)).squareRoot()) },
                peakPower: peaks.map { MeterReading.decibels(Double($0)) },
                frames: frames)
        }
    }
}

#if canImport(Glibc)
import Glibc
private func log10Double(_ x: Double) -> Double { Glibc.log10(x) }
#else
import Foundation
private func log10Double(_ x: Double) -> Double { Foundation.log10(x) }
#endif
