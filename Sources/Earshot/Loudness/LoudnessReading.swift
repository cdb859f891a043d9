import Foundation

/// What a ``LoudnessMeter`` measured: EBU R128 loudness (LUFS, LU) and peaks (dBTP, dBFS).
///
/// A loudness that is `nil` is silence: nothing above BS.1770's absolute gate (−70 LUFS).
///
/// ```swift
/// let meter = try LoudnessMeter(channels: 2, sampleRate: 48_000)
/// try meter.add([Float](repeating: 0.1, count: 2 * 48_000))
/// let r = meter.reading()
/// print(r.summary)   // "integrated … LUFS, LRA … LU, max momentary …, max short-term …, true peak … dBTP"
/// ```
public struct LoudnessReading: Sendable, Equatable, Codable {
    /// Integrated (gated) loudness of everything measured, LUFS.
    public var integrated: Double?
    /// Loudness range (EBU Tech 3342), LU.
    public var range: Double
    /// Loudness of the last 400 ms and of the last 3 s when the reading was taken, LUFS.
    public var momentary: Double?
    public var shortTerm: Double?
    /// The loudest momentary and short-term loudness, read every 100 ms, LUFS.
    public var maxMomentary: Double?
    public var maxShortTerm: Double?
    /// The highest 4×-oversampled peak of any channel, dBTP (−∞: silence).
    public var truePeak: Double
    /// The highest sample of any channel, dBFS (−∞: silence).
    public var samplePeak: Double
    /// Seconds of audio measured.
    public var seconds: Double

    public init(
        integrated: Double?, range: Double, momentary: Double?, shortTerm: Double?, maxMomentary: Double?,
        maxShortTerm: Double?, truePeak: Double, samplePeak: Double, seconds: Double
    ) {
        self.integrated = integrated
        self.range = range
        self.momentary = momentary
        self.shortTerm = shortTerm
        self.maxMomentary = maxMomentary
        self.maxShortTerm = maxShortTerm
        self.truePeak = truePeak
        self.samplePeak = samplePeak
        self.seconds = seconds
    }

    /// A loudness for people: "-23.0 LUFS", or "-inf LUFS" for silence.
    public static func lufs(_ value: Double?) -> String {
        guard let value else { return "-inf LUFS" }
        return String(format: "%.1f LUFS", value)
    }

    /// A peak for people: "+0.3 dBTP", "-inf dBTP".
    public static func decibels(_ value: Double, unit: String) -> String {
        value.isFinite ? String(format: "%+.1f %@", value, unit) : "-inf \(unit)"
    }

    /// One line: integrated, LRA, max momentary, max short-term, true peak.
    public var summary: String {
        "integrated \(Self.lufs(integrated)), LRA \(String(format: "%.1f", range)) LU, max momentary \(Self.lufs(maxMomentary)), "
            + "max short-term \(Self.lufs(maxShortTerm)), true peak \(Self.decibels(truePeak, unit: "dBTP"))"
    }
}
