import Earshot
import Yams

/// An entry of `clips:` (scenes and banks): `id: path`, or `id: { file: path, loudness: -23,
/// gain: -3 }` — a loudness-normalised clip (Conversion/SceneClip+Loudness.swift).
extension SceneParser {
    static let clipKeys = ["file", "loudness", "gain"]
    /// The gains a clip's `gain:` takes (dB), as a sound's.
    static let clipGains: ClosedRange<Double> = -120...24

    mutating func clip(_ value: Node, id: String) -> SceneClip? {
        let key = "clips.\(id)"
        guard case .mapping = value else { return audioFile(value, key, clipID: id).map { SceneClip(id: id, path: $0) } }
        guard let m = mapping(value, key, allowed: Self.clipKeys, required: ["file"]), let file = m["file"] else { return nil }
        let path = audioFile(file, "\(key).file", clipID: id)
        var clip = SceneClip(id: id, path: path ?? "")
        clip.loudness = soundLoudness(m["loudness"], key)   // the range a sound's takes (SceneParser+Loudness.swift)
        clip.gainDB = m["gain"].flatMap { gainDB($0, "\(key).gain", in: Self.clipGains) } ?? 0
        guard path != nil else { return nil }
        // Measured now (once per file: the engine's load reuses it), so that a clip whose
        // normalisation could not be heard is refused where it is written, as render would.
        guard clip.loudness != nil, let node = m["loudness"] else { return clip }
        do throws(EarshotError) {
            if let problem = try clip.gainProblem() { fail(node, "\(key).loudness", problem) }
        } catch {
            fail(file, "\(key).file", "cannot measure its loudness: \(error.description)")
        }
        return clip
    }
}
