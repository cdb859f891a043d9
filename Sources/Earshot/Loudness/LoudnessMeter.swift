import Foundation
import CEbur128

/// ITU-R BS.1770-4 / EBU R128 loudness and true peak of interleaved float audio, measured by
/// libebur128 (the implementation ffmpeg's `ebur128` filter and many DAWs' meters agree with).
///
/// Feed it audio with ``add(_:)``; read, at any time, ``momentary`` (the last 400 ms),
/// ``shortTerm`` (the last 3 s), ``integrated`` (everything so far, gated at −70 LUFS and
/// −10 LU below the ungated level), ``range`` (LRA, EBU Tech 3342), ``truePeak`` (4× oversampled,
/// dBTP) and ``samplePeak`` (dBFS), or all of them as a ``LoudnessReading``. The meter also keeps
/// the maximum momentary and short-term loudness, read every 100 ms of audio (the EBU's hop).
///
/// Sizes are checked before anything reaches the C library: 1…``maxChannels`` channels, a rate of
/// ``sampleRates``, whole frames. Channels are weighted as BS.1770 says for the layouts an engine
/// renders (mono, stereo, quad, 5.1, 6.1, 7.1: the LFE is left out, surround and back channels
/// count +1.5 dB).
///
/// Memory: the integrated loudness and LRA keep one number per 100 ms block — 288 KB for an hour.
/// A meter that runs without end (a live master meter) passes `bounded: true`, which keeps a
/// fixed histogram instead (1,000 bins of 0.1 LU: integrated and LRA within ±0.05 LU).
///
/// ```swift
/// let meter = try LoudnessMeter(channels: 2, sampleRate: 48_000)
/// let tone = (0..<96_000).map { i in Float(0.1 * sin(2 * Double.pi * 1_000 * Double(i / 2) / 48_000)) }
/// try tone.withUnsafeBufferPointer { try meter.add($0) }
/// print(meter.reading().integrated ?? -.infinity)   // about −20 LUFS (−20 dBFS, both channels)
/// ```
public final class LoudnessMeter {
    /// The most channels a meter takes (the engine's streams carry up to 16).
    public static let maxChannels = 16
    /// The sample rates a meter takes (frames per second).
    public static let sampleRates = 8_000...384_000
    /// Loudness below this is silence to BS.1770's absolute gate (LUFS).
    public static let absoluteGate = -70.0

    public let channels: Int
    public let sampleRate: Int
    /// Whether the integrated loudness and LRA use a fixed-size histogram (see the type's doc).
    public let bounded: Bool
    /// Whether the meter measures true peak (4× oversampling: about three times the cost of the
    /// loudness alone; ``truePeak`` reads −∞ without it).
    public let measuresTruePeak: Bool

    private var state: UnsafeMutablePointer<ebur128_state>?
    /// Frames added since the last 100 ms hop, and the hop's length in frames.
    private var sinceHop = 0
    private let hop: Int
    /// Frames added in all.
    public private(set) var frames = 0
    /// The loudest momentary and short-term loudness read at the 100 ms hops so far (nil: none
    /// above the absolute gate yet).
    public private(set) var maxMomentary: Double?
    public private(set) var maxShortTerm: Double?

    /// A meter for `channels` interleaved channels at `sampleRate`. Throws
    /// ``EarshotError/invalidArgument(_:)`` for a count or rate outside the limits, and
    /// ``EarshotError/loudness(_:)`` when the library cannot make its state (out of memory).
    public init(channels: Int, sampleRate: Int, truePeak: Bool = true, bounded: Bool = false) throws(EarshotError) {
        guard (1...Self.maxChannels).contains(channels) else {
            throw .invalidArgument("loudness meter of \(channels) channels (1…\(Self.maxChannels))")
        }
        guard Self.sampleRates.contains(sampleRate) else {
            throw .invalidArgument(
                "loudness meter at \(sampleRate) Hz (\(Self.sampleRates.lowerBound)…\(Self.sampleRates.upperBound))")
        }
        self.channels = channels
        self.sampleRate = sampleRate
        self.bounded = bounded
        measuresTruePeak = truePeak
        hop = sampleRate / 10
        var mode = Int32(EBUR128_MODE_S.rawValue | EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue
            | EBUR128_MODE_SAMPLE_PEAK.rawValue)
        if truePeak { mode |= Int32(EBUR128_MODE_TRUE_PEAK.rawValue) }
        if bounded { mode |= Int32(EBUR128_MODE_HISTOGRAM.rawValue) }
        guard let st = ebur128_init(UInt32(channels), UInt(sampleRate), mode) else {
            throw .loudness("libebur128 could not make a meter of \(channels) channels at \(sampleRate) Hz")
        }
        state = st
        for (index, weight) in Self.channelMap(channels).enumerated() {
            // The index is below `channels` by construction: the call cannot fail.
            _ = ebur128_set_channel(st, UInt32(index), Int32(weight.rawValue))
        }
    }

    deinit {
        if state != nil { ebur128_destroy(&state) }
    }

    /// BS.1770's channel weights for an interleaved layout of `count` channels (the engine's
    /// orders: quad L R Ls Rs; 5.1 L R C LFE Ls Rs; 6.1 L R C LFE Cs Ls Rs; 7.1 L R C LFE Lb Rb Ls Rs).
    static func channelMap(_ count: Int) -> [channel] {
        switch count {
        case 1: return [EBUR128_CENTER]
        case 2: return [EBUR128_LEFT, EBUR128_RIGHT]
        case 4: return [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND]
        case 6: return [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND]
        case 7: return [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_Mp180, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND]
        case 8:
            return [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_Mp135, EBUR128_Mm135,
                    EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND]
        default:
            // Other counts (3, 5, 9…16: files, not engine layouts): the first three as L R C,
            // the rest weighted as front channels.
            return (0..<count).map { $0 == 1 ? EBUR128_RIGHT : $0 == 2 ? EBUR128_CENTER : EBUR128_LEFT }
        }
    }

    /// Adds interleaved audio (whole frames). Throws ``EarshotError/invalidArgument(_:)`` for a
    /// buffer that is not whole frames (nothing is added), ``EarshotError/loudness(_:)`` when the
    /// library runs out of memory.
    public func add(_ samples: UnsafeBufferPointer<Float>) throws(EarshotError) {
        guard samples.count % channels == 0 else {
            throw .invalidArgument("loudness meter: \(samples.count) samples are not whole frames of \(channels) channels")
        }
        guard let base = samples.baseAddress, let st = state else { return }
        var offset = 0
        let total = samples.count / channels
        while offset < total {
            // Up to the next 100 ms hop, where the maxima are read.
            let n = min(total - offset, hop - sinceHop)
            let code = ebur128_add_frames_float(st, base + offset * channels, n)
            guard code == Int32(EBUR128_SUCCESS.rawValue) else {
                throw .loudness("libebur128 could not add \(n) frames (error \(code))")
            }
            offset += n
            frames += n
            sinceHop += n
            if sinceHop == hop {
                sinceHop = 0
                if let m = momentary { maxMomentary = max(maxMomentary ?? m, m) }
                if let s = shortTerm { maxShortTerm = max(maxShortTerm ?? s, s) }
            }
        }
    }

    /// Adds an array of interleaved samples.
    public func add(_ samples: [Float]) throws(EarshotError) {
        try samples.withUnsafeBufferPointer { (b) throws(EarshotError) in try add(b) }
    }

    /// A library value in LUFS, nil below the absolute gate (silence, −∞).
    private func gated(_ read: (OpaquePointer?, UnsafeMutablePointer<Double>) -> Int32) -> Double? {
        guard let st = state else { return nil }
        var out = -Double.infinity
        let code = read(OpaquePointer(st), &out)
        guard code == Int32(EBUR128_SUCCESS.rawValue), out.isFinite, out >= Self.absoluteGate else { return nil }
        return out
    }

    /// The loudness of the last 400 ms (LUFS; nil: silence).
    public var momentary: Double? { gated { ebur128_loudness_momentary(UnsafeMutablePointer($0), $1) } }
    /// The loudness of the last 3 s (LUFS; nil: silence).
    public var shortTerm: Double? { gated { ebur128_loudness_shortterm(UnsafeMutablePointer($0), $1) } }
    /// The gated loudness of everything added (LUFS; nil: nothing above the absolute gate).
    public var integrated: Double? { gated { ebur128_loudness_global(UnsafeMutablePointer($0), $1) } }
    /// The loudness range (LU, EBU Tech 3342; 0 for less than 3 s or a steady level).
    public var range: Double {
        guard let st = state else { return 0 }
        var out = 0.0
        guard ebur128_loudness_range(st, &out) == Int32(EBUR128_SUCCESS.rawValue), out.isFinite else { return 0 }
        return out
    }

    /// The highest 4×-oversampled peak of any channel so far, in dBTP (−∞ for silence).
    public var truePeak: Double { measuresTruePeak ? peak(ebur128_true_peak) : -.infinity }
    /// The highest sample of any channel so far, in dBFS (−∞ for silence).
    public var samplePeak: Double { peak(ebur128_sample_peak) }

    private func peak(_ read: (UnsafeMutablePointer<ebur128_state>?, UInt32, UnsafeMutablePointer<Double>) -> Int32) -> Double {
        guard let st = state else { return -.infinity }
        var highest = 0.0
        for c in 0..<channels {
            var v = 0.0
            if read(st, UInt32(c), &v) == Int32(EBUR128_SUCCESS.rawValue), v.isFinite { highest = max(highest, v) }
        }
        return highest > 0 ? 20 * log10(highest) : -.infinity
    }

    /// Every measure at once.
    public func reading() -> LoudnessReading {
        LoudnessReading(
            integrated: integrated, range: range, momentary: momentary, shortTerm: shortTerm,
            maxMomentary: maxMomentary, maxShortTerm: maxShortTerm, truePeak: truePeak, samplePeak: samplePeak,
            seconds: Double(frames) / Double(sampleRate))
    }
}
