/// How an ambisonic file's channels are ordered and weighted.
///
/// - ``ambix``: ACN channel order, SN3D normalisation — what most tools write (the default).
/// - ``fuma``: Furse–Malham: W X Y Z (R S T U V (K L M N O P Q)), W at −3 dB, MaxN-like
///   weights; only by declaration (a file does not say which it is).
///
/// The order follows from the channel count: 4 → first, 9 → second, 16 → third
/// (``order(channels:)``); full-sphere only.
///
/// ```swift
/// let order = try AmbisonicFormat.order(channels: 16)   // 3
/// ```
public enum AmbisonicFormat: String, Sendable, Hashable, CaseIterable {
    case ambix
    case fuma

    /// The highest order Earshot plays.
    public static let maxOrder = 3

    /// The order of a full-sphere file of `channels` channels: 4 → 1, 9 → 2, 16 → 3.
    /// Throws ``EarshotError/unsupportedEncoding(_:)`` for any other count.
    public static func order(channels: Int) throws(EarshotError) -> Int {
        switch channels {
        case 4: return 1
        case 9: return 2
        case 16: return 3
        default:
            throw .unsupportedEncoding("\(channels) channels is no full-sphere ambisonic order (4, 9 or 16 channels: first, second or third order)")
        }
    }

    /// Channels of a full-sphere signal of `order`: (order + 1)².
    public static func channels(order: Int) -> Int { (order + 1) * (order + 1) }

    /// FuMa channel f (W X Y Z R S T U V K L M N O P Q) is ACN channel `fumaToACN[f]`.
    static let fumaToACN = [0, 3, 1, 2, 6, 7, 5, 8, 4, 12, 13, 11, 14, 10, 15, 9]
    /// FuMa channel f times `fumaToSN3D[f]` is its SN3D value: FuMa's components above W are
    /// MaxN (each peaks at 1), so the factor is each SN3D harmonic's peak (√3/2 for S T U V,
    /// √(32/45) for L M, √5/3 for N O, √(5/8) for P Q); W is stored at −3 dB.
    static let fumaToSN3D: [Float] = {
        let r2 = Double(2).squareRoot(), s = Double(3).squareRoot() / 2
        let lm = Double(32.0 / 45).squareRoot(), no = Double(5).squareRoot() / 3, pq = Double(5.0 / 8).squareRoot()
        return [r2, 1, 1, 1, 1, s, s, s, s, 1, lm, lm, no, no, pq, pq].map { Float($0) }
    }()

    /// Converts `frames` interleaved frames of `channels` channels in this format to AmbiX
    /// (ACN/SN3D) in `output` (same size). AmbiX is copied.
    func toAmbiX(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, frames: Int, channels: Int) {
        switch self {
        case .ambix:
            output.update(from: input, count: frames * channels)
        case .fuma:
            for f in 0..<frames {
                let i = input + f * channels, o = output + f * channels
                for c in 0..<channels { o[Self.fumaToACN[c]] = i[c] * Self.fumaToSN3D[c] }
            }
        }
    }
}
