import Earshot
import Foundation
import Yams

/// Gains as designers write them: one convention in files, dB. A gain may always be
/// written with its unit (`gain: -6 dB`, `-6dB`); a bare number is dB on the keys that were always
/// dB (a sound's, a bus's, a snapshot's `gain`, a music track's `gain`). The keys that were
/// linear factors before — an emitter's `gain`, a stem's `gain`, a music track's `volume` — still
/// read a bare number as a linear factor (files written for them keep their meaning), with a
/// warning that gives the dB to write instead; on those keys `silent` writes the old 0.
extension SceneParser {
    /// The dB of a gain `node` at `key`, within `range` dB. `linear`: the key's old linear form
    /// (a bare number is a factor within `linear`'s range, read with a warning); nil for keys
    /// that were always dB.
    mutating func gainDB(_ node: Node, _ key: String, in range: ClosedRange<Double>,
                         linear: ClosedRange<Double>? = nil) -> Double? {
        let expectation = "dB \(Self.dB(range.lowerBound))…\(Self.dB(range.upperBound)), written like -6 dB"
        if case .scalar(let s) = node, let db = Self.dBSuffixed(s.string) {
            guard db.isFinite, range.contains(db) else {
                fail(node, key, "\(s.string) is out of range (expected \(expectation))")
                return nil
            }
            return db
        }
        guard let linear else { return number(node, key, in: range, expectation) }
        // The keys that were linear could say 0: `silent` says it in the new form.
        if case .scalar(let s) = node, s.string == "silent" { return -.infinity }
        guard
            let factor = number(
                node, key, in: linear,
                "a gain in dB written like -6 dB (\(Self.dB(range.lowerBound))…\(Self.dB(range.upperBound))), or the old linear factor \(linear.lowerBound)…\(linear.upperBound)"
            )
        else { return nil }
        let db = factor > 0 ? 20 * log10(factor) : -Double.infinity
        let write = factor > 0 ? "\(Self.dB((db * 100).rounded() / 100)) dB" : "silent"
        warnUnits(
            node, key,
            "\(Self.dB(factor)) is read as the old linear factor (\(factor > 0 ? "\(Self.dB((db * 100).rounded() / 100)) dB" : "silence")); gains are dB now: write \(key.split(separator: ".").last ?? "gain"): \(write)"
        )
        return factor > 0 ? max(db, range.lowerBound) : -.infinity
    }

    /// `-6 dB`, `-6dB`, `+3 db`: the number, or nil when the text has no dB unit.
    static func dBSuffixed(_ text: String) -> Double? {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard t.count > 2, t.lowercased().hasSuffix("db") else { return nil }
        let number = t.dropLast(2).trimmingCharacters(in: .whitespaces)
        return Double(number.hasPrefix("+") ? String(number.dropFirst()) : number)
    }

    /// A number as a file would write it (no trailing `.0`).
    static func dB(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }

    /// A warning found while reading (a unit slip, an old form), for ``Scene/warnings()``.
    mutating func warnUnits(_ node: Node?, _ key: String, _ message: String) {
        unitWarnings.append(
            SceneWarning(file: file, line: node?.mark?.line, column: node?.mark?.column, key: key, message: message))
    }
}

extension SceneParser {
    /// A music track's level as a linear volume: `gain:` in dB (−120…+12), or the old `volume:`
    /// factor (0…3.98, +12 dB) with a warning; not both.
    mutating func trackVolume(_ m: [String: Node], _ key: String) -> Float {
        let top = Double(20 * log10(MusicTrack.maxVolume))
        if let g = m["gain"] {
            if let v = m["volume"] {
                fail(v, "\(key).volume", "give either gain: (dB) or the old volume: (a factor), not both")
            }
            return gainDB(g, "\(key).gain", in: -120...top.rounded()).map { Float(pow(10, $0 / 20)) } ?? 1
        }
        guard let v = m["volume"] else { return 1 }
        if case .scalar(let s) = v, Self.dBSuffixed(s.string) != nil {
            return gainDB(v, "\(key).volume", in: -120...top.rounded()).map { Float(pow(10, $0 / 20)) } ?? 1
        }
        guard
            let factor = number(
                v, "\(key).volume", in: 0...Double(MusicTrack.maxVolume),
                "a factor 0…\(MusicTrack.maxVolume) (+12 dB); or write gain: in dB")
        else { return 1 }
        let db = factor > 0 ? ((20 * log10(factor)) * 100).rounded() / 100 : -120
        warnUnits(
            v, "\(key).volume",
            "volume: \(Self.dB(factor)) is the old linear form; music levels are dB now: write gain: \(Self.dB(db)) dB")
        return Float(factor)
    }
}

extension SceneParser {
    /// An event's or a zone's gain: a linear factor within `range` as it always was (the Swift
    /// API's convention; no warning), or a level written with its unit (`-6 dB`), converted —
    /// so a file can be written in dB throughout.
    mutating func factor(_ node: Node, _ key: String, in range: ClosedRange<Double>) -> Double? {
        let expectation = "a factor \(Self.dB(range.lowerBound))…\(Self.dB(range.upperBound)), or dB written like -6 dB"
        guard case .scalar(let s) = node, let db = Self.dBSuffixed(s.string) else {
            return number(node, key, in: range, expectation)
        }
        let f = db.isFinite ? pow(10, db / 20) : .nan
        guard f.isFinite, range.contains(f) else {
            fail(node, key, "\(s.string) is out of range (expected \(expectation))")
            return nil
        }
        return f
    }
}
