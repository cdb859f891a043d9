/// How much a path loses where it bends round a portal's edge (diffraction), by the angle it
/// turns there: nothing at 0° (a straight line through the opening), then linearly
/// ``lossPer90`` dB overall and ``highLossPer90`` dB more above about 5 kHz for each 90°, up to
/// 180°. The defaults (6 dB and 12 dB per 90°) follow the shape of Wwise's default diffraction
/// curve: round one corner (90°) a voice is 6 dB quieter and 18 dB darker in the highs.
///
/// ```swift
/// let curve = DiffractionCurve()
/// let corner = curve.lossDB(degrees: 90)        // 6
/// let darker = curve.highLossDB(degrees: 90)    // 12 (on top of the 6)
/// ```
public struct DiffractionCurve: Sendable, Equatable {
    public var lossPer90: Float
    public var highLossPer90: Float

    public init(lossPer90: Float = 6, highLossPer90: Float = 12) {
        self.lossPer90 = lossPer90
        self.highLossPer90 = highLossPer90
    }

    /// Broadband loss, dB, for a bend of `degrees` (clamped to 0…180).
    @inline(__always)
    public func lossDB(degrees: Float) -> Float { lossPer90 * min(max(degrees, 0), 180) / 90 }

    /// Extra loss of the highs, dB, for a bend of `degrees` (clamped to 0…180).
    @inline(__always)
    public func highLossDB(degrees: Float) -> Float { highLossPer90 * min(max(degrees, 0), 180) / 90 }

    public var isValid: Bool {
        lossPer90.isFinite && highLossPer90.isFinite && (0...60).contains(lossPer90) && (0...60).contains(highLossPer90)
    }
}
