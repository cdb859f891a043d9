import Earshot
import Foundation

/// `earshot stress --find-limit`: the most real voices that mix in real time within a CPU budget,
/// for the engine and for raw OpenAL doing the same work in the same runs.
///
/// A probe renders `probeSeconds` of N looping voices (N sources, none virtual) in updates of
/// `updateFrames` at 48 kHz, through the engine and, frame by frame beside it, raw OpenAL; the
/// CPU each spends per rendered second is its share of one core. The limit is the largest N
/// whose share stays within the budget: doubling from 128 until over (or 4,096, the most sources
/// OpenAL Soft grants here), then bisecting to within 2 % (8 voices at least). Every probe
/// measures both sides (twice, keeping the lower figure of each), and a side's search reuses
/// the other's probes.
struct VoiceLimitSearch {
    /// What every voice does in a row of the table.
    enum Kind: String, CaseIterable, Codable {
        case pcm, ima4, hrtf, reverb1, reverb2

        var label: String {
            switch self {
            case .pcm: return "PCM (16-bit WAV)"
            case .ima4: return "IMA4 CAF (decoded at load)"
            case .hrtf: return "PCM, HRTF"
            case .reverb1: return "PCM, 1 reverb send"
            case .reverb2: return "PCM, 2 reverb sends"
            }
        }
    }

    struct Row: Codable {
        var kind: Kind
        var label: String
        /// The most voices within the budget (0: not even the fewest probed).
        var engineVoices: Int
        var rawOpenALVoices: Int
        /// Share of one core at that many voices.
        var engineShare: Double
        var rawOpenALShare: Double
        var probes: Int
    }

    var budget: Double
    var updateFrames: Int
    var probeSeconds: Double
    static let maxVoices = 4_096

    /// The clips of the table: the step sound as 16-bit PCM and as IMA4 CAF (the same recording).
    static func clip(for kind: Kind) throws -> PCMAudio {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let name = kind == .ima4 ? "Assets/Sounds/step-ima4.caf" : "Assets/Sounds/step.wav"
        let candidates = [name, root.appendingPathComponent(name).path]
        guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw EarshotError.fileNotFound(path: name)
        }
        return try ClipDecoder.decode(path: path).downmixedToMono()
    }

    func run(_ kind: Kind, progress: (String) -> Void) throws -> Row {
        let clip = try Self.clip(for: kind)
        var shares: [Int: (engine: Double, raw: Double)] = [:]
        func measure(_ n: Int) throws -> (engine: Double, raw: Double) {
            if let known = shares[n] { return known }
            var w = StressWorkload(voices: n, seconds: probeSeconds, maxReal: n, hrtf: kind == .hrtf)
            w.updateFrames = updateFrames
            w.clip = clip
            w.reverbSends = kind == .reverb1 ? 1 : kind == .reverb2 ? 2 : 0
            // Twice, keeping each side's lower figure: interference from the rest of the machine
            // only ever adds CPU time, and one probe's noise was seen to reach ±10 %.
            var share = (Double.infinity, Double.infinity)
            for _ in 0..<2 {
                let (engine, baseline) = try w.run(withBaseline: true) { _ in }
                let rendered = max(engine.renderedSeconds, 1e-9)
                share = (min(share.0, engine.cpuSeconds / rendered), min(share.1, (baseline?.cpuSeconds ?? .infinity) / rendered))
            }
            shares[n] = share
            progress(String(format: "%@: %d voices: engine %.1f %%, raw OpenAL %.1f %% of a core", kind.rawValue, n, share.0 * 100, share.1 * 100))
            return share
        }
        func limit(_ side: KeyPath<(engine: Double, raw: Double), Double>) throws -> Int {
            var lo = 0, hi = 0, n = 128
            while true {
                if try measure(n)[keyPath: side] <= budget {
                    lo = n
                    if n == Self.maxVoices { return n }
                    n = min(n * 2, Self.maxVoices)
                } else {
                    hi = n
                    break
                }
            }
            if lo == 0 {
                // Even 128 is over: bisect below it.
                hi = 128
            }
            while hi - lo > max(8, lo / 50) {
                let mid = (lo + hi) / 2
                if try measure(mid)[keyPath: side] <= budget { lo = mid } else { hi = mid }
            }
            return lo
        }
        let engineVoices = try limit(\.engine)
        let rawVoices = try limit(\.raw)
        return Row(kind: kind, label: kind.label, engineVoices: engineVoices, rawOpenALVoices: rawVoices,
                   engineShare: engineVoices > 0 ? shares[engineVoices]?.engine ?? 0 : 0,
                   rawOpenALShare: rawVoices > 0 ? shares[rawVoices]?.raw ?? 0 : 0, probes: shares.count)
    }
}
