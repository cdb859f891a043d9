import Earshot
import Foundation

/// `earshot info FILE`'s loudness lines (and its JSON's `loudness` object).
extension InfoCommand {
    /// The file's loudness, or the one-line reason it could not be measured (the rest of the
    /// description stands: a file the engine cannot stream still has a header to describe).
    static func loudness(of path: String) -> Result<LoudnessReading, EarshotError> {
        do throws(EarshotError) { return .success(try LoudnessMeter.measure(path: path)) } catch { return .failure(error) }
    }

    static func printLoudness(_ result: Result<LoudnessReading, EarshotError>) {
        switch result {
        case .success(let r):
            say("loudness:    \(LoudnessReading.lufs(r.integrated)) integrated, LRA \(String(format: "%.1f", r.range)) LU, max momentary \(LoudnessReading.lufs(r.maxMomentary)), max short-term \(LoudnessReading.lufs(r.maxShortTerm))")
            say("true peak:   \(LoudnessReading.decibels(r.truePeak, unit: "dBTP")) (sample peak \(LoudnessReading.decibels(r.samplePeak, unit: "dBFS")))")
        case .failure(let e):
            say("loudness:    not measured: \(e.description)")
        }
    }

    /// The JSON object: numbers, null for silence (−∞), or an error string.
    static func loudnessJSON(_ result: Result<LoudnessReading, EarshotError>) -> Any {
        switch result {
        case .success(let r):
            func n(_ v: Double?) -> Any { v.flatMap { $0.isFinite ? $0 : nil } ?? NSNull() }
            return ["integrated": n(r.integrated), "range": r.range, "maxMomentary": n(r.maxMomentary),
                    "maxShortTerm": n(r.maxShortTerm), "truePeak": n(r.truePeak), "samplePeak": n(r.samplePeak)]
        case .failure(let e):
            return ["error": e.description]
        }
    }
}
