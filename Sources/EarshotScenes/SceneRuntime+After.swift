import Earshot
import Foundation

/// The ends of named voices, as the engine reports them (on the thread that updates it).
// @unchecked Sendable: `ended` is read and written only under `lock`.
final class SceneEndedVoices: @unchecked Sendable {
    private let lock = NSLock()
    private var ended: [VoiceEvent] = []
    func add(_ event: VoiceEvent) { lock.lock(); ended.append(event); lock.unlock() }
    func take() -> [VoiceEvent] {
        lock.lock()
        defer { ended = []; lock.unlock() }
        return ended
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
        /// Follow-up indices by the name they wait for.
        var waiting: [String: [Int]] = [:]
        /// Named voices playing, with their foreseen end (scene time; nil: unknown).
        var playing: [String: (voice: Voice, foreseen: Double?)] = [:]
        /// The engine's end reports, taken after each update.
        var ended: SceneEndedVoices?
    }

    /// Files the follow-ups by name and asks the engine for end reports (only when there are any).
    func prepareAfter() {
        guard !scene.followUps.isEmpty else { return }
        for (i, f) in scene.followUps.enumerated() { after.waiting[f.after.voice, default: []].append(i) }
        let ended = SceneEndedVoices()
        after.ended = ended
        engine.observeVoiceEvents { ended.add($0) }
    }

    /// A named play ran at scene time `time`.
    func played(_ name: String, voice: Voice, at time: Double, clip: Clip?, _ p: ScenePlay) {
        guard after.waiting[name] != nil else { return }
        if voice.status == .refused {
            place(followersOf: name, at: time)   // it ended as it began
            return
        }
        var foreseen: Double?
        if let clip {
            let rate = Double(clip.info.sampleRate) * Double(p.pitch)
            let frames = Double(clip.info.frameCount * (p.loops + 1)) - (p.offset * Double(clip.info.sampleRate)).rounded(.down)
            if rate > 0 { foreseen = time + frames / rate }
        }
        after.playing[name] = (voice, foreseen)
        if let foreseen { place(followersOf: name, at: foreseen) }
    }

    /// After each update: the named voices that ended. One that ended where it was foreseen is
    /// followed already; one that ended earlier, or whose end was not foreseen, is followed now.
    func processEnds(sceneTime now: Double) {
        guard let reports = after.ended?.take(), !reports.isEmpty else { return }
        let audioNow = engine.audioTime
        for report in reports {
            guard let (name, entry) = after.playing.first(where: { $0.value.voice == report.voice }) else { continue }
            after.playing[name] = nil
            // On the frame grid: the difference of two clock readings is off by a rounding error,
            // which would put the follower one frame late.
            let rate = Double(engine.sampleRate)
            let end = ((now - max(0, audioNow - report.audioTime)) * rate).rounded() / rate
            if let foreseen = entry.foreseen {
                // Within a frame of the foreseen end: its followers are on the timeline there.
                if end >= foreseen - 1.5 / Double(engine.sampleRate) { continue }
                unplace(followersOf: name)
            }
            place(followersOf: name, at: max(now, end))
        }
    }

    /// An interruption holds every voice: the foreseen ends of the named voices playing no longer
    /// hold; they are followed when the engine reports their ends.
    func interruptionBegan() {
        for (name, entry) in after.playing where entry.foreseen != nil {
            unplace(followersOf: name)
            after.playing[name]?.foreseen = nil
        }
    }

    /// Puts the follow-ups of `name` on the timeline at `end` plus each one's delay.
    private func place(followersOf name: String, at end: Double) {
        for i in after.waiting[name] ?? [] {
            let t = end + scene.followUps[i].after.delay
            guard t <= scene.duration else { continue }
            // After what is due at the same time (file order), never before what already ran.
            var position = next
            while position < timeline.count, timeline[position].time <= t { position += 1 }
            timeline.insert((t, .followUp(i)), at: position)
        }
    }

    /// Takes the follow-ups of `name` that have not run off the timeline.
    private func unplace(followersOf name: String) {
        let mine = Set(after.waiting[name] ?? [])
        var i = next
        while i < timeline.count {
            if case .followUp(let j) = timeline[i].step, mine.contains(j) { timeline.remove(at: i) } else { i += 1 }
        }
    }
}
