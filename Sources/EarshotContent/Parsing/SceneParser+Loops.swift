import Earshot
import Foundation
import Yams

/// `loop: { start, end }` on music tracks and set segments: the region a looping file repeats
/// after playing up to its end once (an intro, then a loop from a point inside the file). Each
/// point is seconds into the file or a cue's name (listed under `cues:` or one of the file's
/// markers); `end` defaults to the file's end. Resolved to seconds here, so validate names a
/// wrong point at its line and render plays what validate read.
extension SceneParser {
    /// The cues of a music file by name, in seconds: its markers, with the listed `cues` replacing
    /// those of the same name.
    func cueSeconds(_ cues: [String: Double], info: ClipFileInfo?) -> [String: Double] {
        var seconds = cues
        for marker in info?.markers ?? [] where cues[marker.name] == nil {
            seconds[marker.name] = marker.time(sampleRate: info?.sampleRate ?? 0)
        }
        return seconds
    }

    /// `loop:` of mapping `m` under `key`, its points in seconds (nil: none, or a problem recorded).
    /// `entry`: where the file starts playing (the loop's end must come after it).
    /// `rate`: the file's frames per second (the region must hold at least one frame).
    mutating func loop(_ m: [String: Node], _ key: String, cues: [String: Double], duration: Double?, rate: Double?,
                       entry: Double = 0) -> MusicLoop? {
        guard let n = m["loop"] else { return nil }
        let lk = "\(key).loop"
        guard let l = mapping(n, lk, allowed: ["start", "end"], required: ["start"]) else { return nil }
        func point(_ name: String) -> Double?? {
            guard let p = l[name] else { return .some(nil) }
            guard case .scalar(let s) = p else {
                fail(p, "\(lk).\(name)", "expected seconds into the file or a cue's name, got \(describe(p))")
                return nil
            }
            if let t = Double(s.string) {
                guard t.isFinite, t >= 0, t <= (duration ?? 86_400) else {
                    fail(
                        p, "\(lk).\(name)",
                        "\(s.string) s lies outside the file (0…\(Self.format(duration ?? 86_400)) s)")
                    return nil
                }
                return t
            }
            guard let t = cues[s.string] else {
                fail(
                    p, "\(lk).\(name)",
                    "no cue \"\(s.string)\"" + Self.didYouMean(s.string, among: cues.keys.sorted())
                        + (cues.isEmpty
                            ? " (the file has no cues: give seconds, or list cues under cues:)"
                            : " (cues: \(cues.keys.sorted().joined(separator: ", ")))"))
                return nil
            }
            return t
        }
        guard let start = point("start"), let end = point("end"), let start else { return nil }
        let last = end ?? duration ?? .infinity
        let frames = rate.map { r in (last.isFinite ? (last * r).rounded() : .infinity) - (start * r).rounded() } ?? 1
        guard last > start, frames >= 1 else {
            fail(
                l["end"] ?? n, "\(lk).end",
                "the loop's end (\(Self.format(last)) s) must come after its start (\(Self.format(start)) s)"
                    + (last > start ? ", by a frame at least" : ""))
            return nil
        }
        guard last > entry else {
            fail(
                l["end"] ?? n, "\(lk).end",
                "the loop's end (\(Self.format(last)) s) must come after the entry (\(Self.format(entry)) s), where the file starts"
            )
            return nil
        }
        return MusicLoop(start: .seconds(start), end: end.map { .seconds($0) })
    }
}

