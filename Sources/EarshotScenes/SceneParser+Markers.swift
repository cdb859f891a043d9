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
        guard let dot = given.firstIndex(of: "."), dot != given.startIndex, given.index(after: dot) != given.endIndex else {
            fail(markerNode, "\(key).marker", "expected NAME.MARKER — the name: of a play, a dot, a marker of its clip (e.g. line1.hit), got \"\(given)\"")
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
            let what = clips.count == 1 ? "clip \(clips[0]) has" : "no clip of sound \(id) (\(clips.joined(separator: ", "))) has"
            let known = names.isEmpty ? " (\(clips.count == 1 ? "it has" : "they have") no markers)"
                : Self.didYouMean(marker, among: names.sorted()) + " (markers: \(names.sorted().joined(separator: ", ")))"
            fail(child(child(f.node, "at"), "marker"), "events[\(f.index)].at.marker",
                 "\(what) no marker \"\(marker)\"" + known)
        }
    }
}
