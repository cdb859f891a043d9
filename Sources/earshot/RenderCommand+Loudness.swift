import ArgumentParser
import Earshot
import EarshotScenes
import Foundation

/// `earshot render`'s loudness: the summary line after the render, and the CI check of
/// `--loudness-target LUFS [--loudness-tolerance LU] [--true-peak dBTP]`.
extension RenderCommand {
    /// The targets `--loudness-target` takes (LUFS).
    static let loudnessTargets = -70.0...0.0
    /// The ceilings `--true-peak` takes (dBTP).
    static let truePeakCeilings = -30.0...3.0
    /// The tolerances `--loudness-tolerance` takes (LU).
    static let loudnessTolerances = 0.0...10.0

    func validateLoudness() throws {
        if let t = loudnessTarget, !(t.isFinite && Self.loudnessTargets.contains(t)) {
            throw ValidationError("--loudness-target must be between -70 and 0 LUFS")
        }
        if let p = truePeak, !(p.isFinite && Self.truePeakCeilings.contains(p)) {
            throw ValidationError("--true-peak must be between -30 and +3 dBTP")
        }
        if !(loudnessTolerance.isFinite && Self.loudnessTolerances.contains(loudnessTolerance)) {
            throw ValidationError("--loudness-tolerance must be between 0 and 10 LU")
        }
        if truePeak != nil, loudnessTarget == nil {
            throw ValidationError("--true-peak goes with --loudness-target (give both)")
        }
    }

    /// The line printed after the render's summary.
    static func loudnessLine(_ r: LoudnessReading) -> String {
        "earshot: loudness: " + r.summary + String(format: " (sample peak %@)", LoudnessReading.decibels(r.samplePeak, unit: "dBFS"))
    }

    /// What the render missed, on one line; nil when it meets the targets (or none was given).
    func loudnessMiss(_ r: LoudnessReading) -> String? {
        guard let target = loudnessTarget else { return nil }
        var misses: [String] = []
        if let i = r.integrated {
            if abs(i - target) > loudnessTolerance + 1e-9 {
                misses.append(String(format: "integrated %.1f LUFS is %+.1f LU from the target %.1f LUFS (±%.1f)", i, i - target, target, loudnessTolerance))
            }
        } else {
            misses.append(String(format: "the render is silent (no loudness above -70 LUFS), the target is %.1f LUFS", target))
        }
        if let ceiling = truePeak, r.truePeak > ceiling {
            misses.append(String(format: "true peak %+.1f dBTP is over %+.1f dBTP", r.truePeak, ceiling))
        }
        return misses.isEmpty ? nil : "loudness target missed: " + misses.joined(separator: "; ")
    }
}
