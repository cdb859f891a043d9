import Earshot
import Foundation
import Yams

/// Events placed on a marker of another event's voice: `{ at: { marker: line1.hit }, play: boom }`
/// — each time the voice of the play named `line1` passes its clip's marker `hit` (every pass of
/// its loops), plus an optional `delay:`.
extension SceneParser {
    /// The `at:` mapping `node` of event `key` as the follow-up it describes, or nil with a problem.
    mutating func relativeAt(_ node: Node, _ key: String, delay: Double) -> SceneAfter? {
        guard let m = mapping(node, key, allowed: ["marker"], required: ["marker"]),
              let markerNode = m["marker"], let given = string(markerNode, "\(key).marker") else { return nil }
        // The play's name, a dot, the marker's name: names of plays have no dot of their own to
        // be waited on this way, marker names may have any.
        guard let dot = given.firstIndex(of: "."), dot != given.startIndex, given.index(after: dot) != given.endIndex
        else {
            fail(
                markerNode, "\(key).marker",
                "expected NAME.MARKER — the name: of a play, a dot, a marker of its clip (e.g. line1.hit), got \"\(given)\""
            )
            return nil
        }
        return SceneAfter(voice: String(given[..<dot]), delay: delay, marker: String(given[given.index(after: dot)...]))
    }

    /// Problems for the `at: { marker: … }` events: the named play's clip — or, for a sound, at
    /// least one of its clips — must have the marker (read from its file's header, as the engine
    /// reads it when it loads the clip).
    mutating func checkMarkerFollowUps(_ followUps: [(followUp: SceneFollowUp, node: Node, index: Int)],
                                       playIDs: [String: String]) {
        for f in followUps {
            guard let marker = f.followUp.after.marker, let id = playIDs[f.followUp.after.voice] else { continue }
            let clips = soundClips[id] ?? [id]
            // A layered sound (no clips of its own to pick from): its first layer's voice reports
            // the markers, and the engine follows whatever it reports.
            guard !clips.isEmpty else { continue }
            let infos = clips.compactMap { clipInfo[$0] }
            guard infos.count == clips.count else { continue }   // a clip that could not be read: reported already
            let names = Set(infos.flatMap { $0.markers.map(\.name) })
            guard !names.contains(marker) else { continue }
            let what =
                clips.count == 1
                ? "clip \(clips[0]) has" : "no clip of sound \(id) (\(clips.joined(separator: ", "))) has"
            let known =
                names.isEmpty
                ? " (\(clips.count == 1 ? "it has" : "they have") no markers)"
                : Self.didYouMean(marker, among: names.sorted())
                    + " (markers: \(names.sorted().joined(separator: ", ")))"
            fail(
                child(child(f.node, "at"), "marker"), "events[\(f.index)].at.marker",
                "\(what) no marker \"\(marker)\"" + known)
        }
    }

    /// Refuses a scene whose `after:` and `at: { marker: }` events would run more than
    /// ``SceneLimits/maxScheduledFollowUps`` times in all: what `render` could not finish. A
    /// follow-up runs once for each run of the play it waits for — times, for a marker, the
    /// markers of that name in the play's clip (the most any clip of its sound has) and the
    /// play's passes (`loops` + 1). A 4,096-frame clip with a cue on every frame, played with
    /// `loops: 1000`, schedules 4,100,096. Chains multiply: a follow-up that is itself a named
    /// play runs its own followers each time it runs. Counted as a bound (the scene's duration
    /// may cut it short), in linear time over the follow-ups.
    mutating func checkScheduledFollowUps(
        _ followUps: [(followUp: SceneFollowUp, node: Node, index: Int)],
        playIDs: [String: String], playLoops: [String: Int], timedRuns: [String: Int], at node: Node
    ) {
        guard !followUps.isEmpty else { return }
        var byVoice: [String: [Int]] = [:]
        for (k, f) in followUps.enumerated() { byVoice[f.followUp.after.voice, default: []].append(k) }
        // Runs per named play, from the timed plays along the chains (no cycles: checkAfter).
        var runs: [String: Double] = timedRuns.mapValues(Double.init)
        var queue = Array(timedRuns.keys)
        var total = 0.0
        var head = 0
        var visited = 0
        while head < queue.count {
            let voice = queue[head]
            head += 1
            let voiceRuns = runs[voice] ?? 0
            for k in byVoice[voice] ?? [] {
                visited += 1
                guard visited <= followUps.count * 2 else { break }   // a cycle slipped through: checkAfter reports it
                let f = followUps[k].followUp
                var each = 1.0
                if let marker = f.after.marker, let id = playIDs[voice] {
                    let clips = soundClips[id] ?? [id]
                    let count =
                        clips.compactMap { clipInfo[$0] }.map { $0.markers.filter { $0.name == marker }.count }.max()
                        ?? 0
                    each = Double(count) * Double((playLoops[voice] ?? 0) + 1)
                }
                let n = voiceRuns * each
                total += n
                if total > Double(SceneLimits.maxScheduledFollowUps) {
                    fail(
                        followUps[k].node, "events[\(followUps[k].index)]",
                        "the after: and at: { marker: } events would run more than \(SceneLimits.maxScheduledFollowUps) times in all (this one "
                            + (n >= 1e15 ? "far more" : "\(Int(n))") + " times: "
                            + (f.after.marker.map { "each of the \(Int(each)) passes of marker \($0) of \(voice)" }
                                ?? "each run of \(voice)")
                            + "); SceneLimits.maxScheduledFollowUps is the most a scene may schedule")
                    return
                }
                if let name = f.name {
                    if runs[name] == nil { queue.append(name) }
                    runs[name, default: 0] += n
                }
            }
        }
    }
}
