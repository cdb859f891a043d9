import Earshot
import EarshotContent
import Foundation

/// A scene's dialogue: its line table set on the engine, `say:` events, and the subtitles the
/// render heard (for `earshot render --subtitles` and the plot's subtitle lane).
extension SceneRuntime {
    /// Sets the scene's table and locale (nothing without a `dialogue:` section) and starts
    /// logging subtitles.
    func setUpDialogue() throws(EarshotError) {
        guard let d = scene.dialogue else { return }
        try engine.setDialogueTable(d.table)
        try engine.setLocale(d.locale)
        let log = subtitleLog
        engine.observeSubtitles { log.add($0) }
    }

    /// A `say:` event: the line on its emitter (made now if it has not started), or on the voice
    /// bus. A line the table lacks in every locale is the engine's typed error, thrown on.
    func say(_ s: SceneSay, at time: Double) throws(EarshotError) {
        let by = try s.by.flatMap { id throws(EarshotError) -> Emitter? in
            guard let i = emitterIndex[id] else { return nil }
            return try emitter(i, at: time)
        }
        try engine.say(s.key, by: by)
    }
}

/// The subtitles a scene showed, as entries from `show` (or a cue) to the next cue or `hide`,
/// in audio time (which is scene time: a scene's engine starts with it).
final class SubtitleLog: @unchecked Sendable {
    // @unchecked Sendable: `entries` and `open` are touched only under `lock`.
    private let lock = NSLock()
    private var entries: [SubtitleEntry] = []
    private var open: [UInt64: SubtitleEntry] = [:]

    func add(_ event: SubtitleEvent) {
        lock.withLock {
            switch event {
            case .show(let s):
                open[s.lineID] = SubtitleEntry(start: s.time, end: s.time, text: s.text)
            case .cue(let c):
                if var e = open[c.lineID] {
                    e.end = c.time
                    if e.end > e.start { entries.append(e) }
                }
                open[c.lineID] = SubtitleEntry(start: c.time, end: c.time, text: c.text)
            case .hide(let h):
                if var e = open.removeValue(forKey: h.lineID) {
                    e.end = h.time
                    entries.append(e)
                }
            }
        }
    }

    /// The entries so far by start, shifted by `offset` seconds (a render `from:` a time) and
    /// those ending before it left out; a subtitle still showing ends at `end`.
    func entries(from offset: Double, end: Double) -> [SubtitleEntry] {
        lock.withLock {
            let all = entries + open.values.map { SubtitleEntry(start: $0.start, end: end, text: $0.text) }
            return all.filter { $0.end > offset }
                .map { SubtitleEntry(start: max(0, $0.start - offset), end: $0.end - offset, text: $0.text) }
                .sorted { ($0.start, $0.end) < ($1.start, $1.end) }
        }
    }
}
