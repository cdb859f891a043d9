import Earshot
import Foundation

/// What the engine reports about voices — their ends, the markers they pass — as it reports
/// them (on the thread that updates or renders it), kept for the runtime's next look.
// @unchecked Sendable: `reports` is read and written only under `lock`.
final class SceneReports<Report: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [Report] = []
    func add(_ report: Report) { lock.lock(); reports.append(report); lock.unlock() }
    func take() -> [Report] {
        lock.lock()
        defer { reports = []; lock.unlock() }
        return reports
    }
}

/// Events that run `after:` a named voice ends: placed on the timeline once the end is known.
///
/// A named play of a *clip* ends when its frames run out: its end is foreseen when it starts
/// (the clip's frames after the offset, times the passes, at the clip rate × the pitch) and its
/// followers are placed there at once — on their exact frame offline. A play of a sound (which
/// picks its clip inside the engine), and a voice that ends otherwise — stopped by its sound's
/// limit, refused, held by an interruption — is followed when the engine reports its end
/// (``VoiceEvent/audioTime`` says when it was), at that time plus the delay, or at once when that
/// is already past (up to one game frame late).
extension SceneRuntime {
    struct AfterState {
        /// Follow-up indices by the name they wait for: at the voice's end, at its markers.
        var waiting: [String: [Int]] = [:]
        var markerWaiting: [String: [Int]] = [:]
        /// Named voices playing, with their foreseen end (scene time; nil: unknown) and whether
        /// their markers' followers are on the timeline already (a clip's, foreseen at its start);
        /// if not, they are placed as the engine reports the markers.
        var playing: [String: (voice: Voice, foreseen: Double?, markersPlaced: Bool)] = [:]
        /// The name of each voice in `playing`: every voice's end is reported, and looking each
        /// up by a scan of `playing` cost the number of named voices per report.
        var names: [Voice: String] = [:]
        /// The engine's end and marker reports, taken after each update.
        var ended: SceneReports<VoiceEvent>?
        var markers: SceneReports<MarkerEvent>?
    }

    /// Files the follow-ups by name and asks the engine for end (and marker) reports, only when
    /// there are follow-ups of that kind.
    func prepareAfter() {
        guard !scene.followUps.isEmpty else { return }
        for (i, f) in scene.followUps.enumerated() {
            if f.after.marker == nil {
                after.waiting[f.after.voice, default: []].append(i)
            } else {
                after.markerWaiting[f.after.voice, default: []].append(i)
            }
        }
        let ended = SceneReports<VoiceEvent>()
        after.ended = ended
        engine.observeVoiceEvents { ended.add($0) }
        if !after.markerWaiting.isEmpty {
            let markers = SceneReports<MarkerEvent>()
            after.markers = markers
            engine.observeMarkers { if $0.voice != nil { markers.add($0) } }
        }
    }

    /// A named play ran at scene time `time`.
    func played(_ name: String, voice: Voice, at time: Double, clip: Clip?, _ p: ScenePlay) {
        guard after.waiting[name] != nil || after.markerWaiting[name] != nil else { return }
        if voice.status == .refused {
            place(followersOf: name, at: time)   // it ended as it began (and passes no marker)
            return
        }
        var foreseen: Double?
        if let clip {
            let rate = Double(clip.info.sampleRate) * Double(p.pitch)
            let frames =
                Double(clip.info.frameCount * (p.loops + 1)) - (p.offset * Double(clip.info.sampleRate)).rounded(.down)
            if rate > 0 { foreseen = time + frames / rate }
        }
        if let old = after.playing[name] { after.names[old.voice] = nil }
        after.playing[name] = (voice, foreseen, clip != nil)
        after.names[voice] = name
        if let foreseen { place(followersOf: name, at: foreseen) }
        if let clip { placeMarkerFollowers(of: name, clip: clip, startingAt: time, p) }
    }

    /// After each update: the named voices that ended. One that ended where it was foreseen is
    /// followed already; one that ended earlier, or whose end was not foreseen, is followed now.
    func processEnds(sceneTime now: Double) {
        processMarkers(sceneTime: now)
        guard let reports = after.ended?.take(), !reports.isEmpty else { return }
        let audioNow = engine.audioTime
        var early: [String: Double?] = [:]
        var ends: [(name: String, at: Double)] = []
        for report in reports {
            guard let name = after.names[report.voice], let entry = after.playing[name] else { continue }
            after.playing[name] = nil
            after.names[report.voice] = nil
            // On the frame grid: the difference of two clock readings is off by a rounding error,
            // which would put the follower one frame late.
            let rate = Double(engine.sampleRate)
            let end = ((now - max(0, audioNow - report.audioTime)) * rate).rounded() / rate
            if let foreseen = entry.foreseen {
                // Within a frame of the foreseen end: its followers are on the timeline there.
                if end >= foreseen - 1.5 / Double(engine.sampleRate) { continue }
                early[name] = end   // it ended early: later markers never come
            }
            ends.append((name, max(now, end)))
        }
        // One pass over what is placed for every voice that ended early, then the ends' followers.
        unplace(followersOf: early)
        for e in ends { place(followersOf: e.name, at: e.at) }
    }

    /// An interruption holds every voice: the foreseen ends of the named voices playing no longer
    /// hold; they are followed when the engine reports their ends.
    func interruptionBegan() {
        var held: [String: Double?] = [:]
        for (name, entry) in after.playing where entry.foreseen != nil || entry.markersPlaced {
            held[name] = .some(nil)
            after.playing[name]?.foreseen = nil
            after.playing[name]?.markersPlaced = false   // the engine reports them from now on
        }
        unplace(followersOf: held)
    }

    /// Puts the follow-ups of `name` on the timeline at `end` plus each one's delay.
    private func place(followersOf name: String, at end: Double) {
        for i in after.waiting[name] ?? [] { placeFollowUp(i, at: end + scene.followUps[i].after.delay) }
    }

    /// Puts follow-up `i` on the timeline at scene time `t` (nothing past the scene's end).
    func placeFollowUp(_ i: Int, at t: Double) {
        guard t <= scene.duration else { return }
        placedFollowUps.place(i, at: t)
    }

    /// Takes the follow-ups of each voice name in `ended` that have not run off the timeline:
    /// those placed at its foreseen end, and those placed at its foreseen markers — all of them
    /// (an end of nil: an interruption makes every foreseen time uncertain), or those of markers
    /// past its end (a voice that ended early passes no more markers; those it passed still
    /// run). One pass over what is placed, however many voices: one pass per voice cost the
    /// voices times the follow-ups placed.
    private func unplace(followersOf ended: [String: Double?]) {
        guard !ended.isEmpty, !placedFollowUps.isEmpty else { return }
        var atEnd = Set<Int>()
        var atMarkers: [Int: Double?] = [:]   // follow-up → the end its markers stop at
        for (name, end) in ended {
            for i in after.waiting[name] ?? [] { atEnd.insert(i) }
            for i in after.markerWaiting[name] ?? [] { atMarkers[i] = end }
        }
        let slack = 0.5 / Double(engine.sampleRate)
        placedFollowUps.removeAll { placed in
            let j = placed.index
            if atEnd.contains(j) { return true }
            guard let end = atMarkers[j] else { return false }
            return end.map { placed.time - scene.followUps[j].after.delay > $0 + slack } ?? true
        }
    }
}
