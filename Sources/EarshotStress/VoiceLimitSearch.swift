import Earshot
import Foundation

/// The most real voices that mix in real time within a CPU budget, for the engine and for raw
/// OpenAL doing the same work in the same runs (`earshot stress --find-limit`).
///
/// A probe renders `probeSeconds` of N looping voices (N sources, none virtual) in updates of
/// `updateFrames` at 48 kHz, through the engine and, frame by frame beside it, raw OpenAL
/// (a ``StressWorkload`` run); the CPU each spends per rendered second is its share of one core.
/// The limit is the largest N whose share stays within the budget: doubling from 128 until over
/// (or 4,096, the most sources OpenAL Soft grants here), then bisecting to within 2 % (8 voices
/// at least). Every probe measures both sides (twice, keeping the lower figure of each), and a
/// side's search reuses the other's probes.
///
/// ```swift
/// let search = VoiceLimitSearch(budget: 0.5, updateFrames: 512, probeSeconds: 1.5)
/// let row = try search.run(.pcm) { probe in print(probe) }
/// print(row.engineVoices, row.rawOpenALVoices)
/// ```
public struct VoiceLimitSearch: Sendable {
    /// What every voice does in a row of the table.
    public enum Kind: String, CaseIterable, Codable, Sendable {
        case pcm, ima4, hrtf, reverb1, reverb2

        /// The row's name in the table.
        public var label: String {
            switch self {
            case .pcm: return "PCM (16-bit WAV)"
            case .ima4: return "IMA4 CAF (decoded at load)"
            case .hrtf: return "PCM, HRTF"
            case .reverb1: return "PCM, 1 reverb send"
            case .reverb2: return "PCM, 2 reverb sends"
            }
        }
    }

    /// One row of the table: the limits of both sides for one kind of voice.
    public struct Row: Codable, Sendable {
        public var kind: Kind
        public var label: String
        /// The most voices within the budget (0: not even the fewest probed).
        public var engineVoices: Int
        public var rawOpenALVoices: Int
        /// Share of one core at that many voices.
        public var engineShare: Double
        public var rawOpenALShare: Double
        /// Voice counts probed (each measured once, for both sides).
        public var probes: Int
    }

    /// One probe's measurement, reported as the search goes.
    public struct Probe: Sendable, CustomStringConvertible {
        public var kind: Kind
        public var voices: Int
        /// Shares of one core (the lower of the two runs, for each side).
        public var engineShare: Double
        public var rawOpenALShare: Double

        /// `"pcm: 256 voices: engine 10.2 %, raw OpenAL 10.0 % of a core"`.
        public var description: String {
            String(format: "%@: %d voices: engine %.1f %%, raw OpenAL %.1f %% of a core",
                   kind.rawValue, voices, engineShare * 100, rawOpenALShare * 100)
        }
    }

    /// The CPU budget as a share of one core (0…1).
    public var budget: Double
    /// Frames mixed per update.
    public var updateFrames: Int
    /// Seconds rendered per probe run.
    public var probeSeconds: Double
    /// The most voices probed (the most sources OpenAL Soft grants here).
    public static let maxVoices = 4_096

    public init(budget: Double, updateFrames: Int, probeSeconds: Double) {
        self.budget = budget
        self.updateFrames = updateFrames
        self.probeSeconds = probeSeconds
    }

    /// The clips of the table: the step sound as 16-bit PCM and as IMA4 CAF (the same
    /// recording), mono. Looked up in the working directory's `Assets/Sounds`, then in the
    /// package's.
    public static func clip(for kind: Kind) throws -> PCMAudio {
        // Sources/EarshotStress/VoiceLimitSearch.swift → the package's root folder.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let name = kind == .ima4 ? "Assets/Sounds/step-ima4.caf" : "Assets/Sounds/step.wav"
        let candidates = [name, root.appendingPathComponent(name).path]
        guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw EarshotError.fileNotFound(path: name)
        }
        return try ClipDecoder.decode(path: path).downmixedToMono()
    }

    /// Searches every kind in `kinds` in turn and returns the table.
    ///
    /// - Parameter progress: Gets each probe's measurement as it is made.
    /// - Throws: ``EarshotError`` (no clip, engine failures) or ``StressError`` (the baseline).
    public func report(kinds: [Kind] = Kind.allCases, progress: (Probe) -> Void = { _ in }) throws -> LimitReport {
        var rows: [Row] = []
        for kind in kinds { rows.append(try run(kind, progress: progress)) }
        return LimitReport(budget: budget, updateFrames: updateFrames, sampleRate: StressWorkload.rate, rows: rows)
    }

    /// Searches one kind of voice: the engine's limit, then raw OpenAL's (reusing the probes).
    ///
    /// - Parameter progress: Gets each probe's measurement as it is made.
    public func run(_ kind: Kind, progress: (Probe) -> Void = { _ in }) throws -> Row {
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
                let result = try w.run(withBaseline: true)
                let rendered = max(result.engine.renderedSeconds, 1e-9)
                share = (min(share.0, result.engine.cpuSeconds / rendered),
                         min(share.1, (result.baseline?.cpuSeconds ?? .infinity) / rendered))
            }
            shares[n] = share
            progress(Probe(kind: kind, voices: n, engineShare: share.0, rawOpenALShare: share.1))
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
