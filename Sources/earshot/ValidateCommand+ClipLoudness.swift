import Earshot
import EarshotContent
import Foundation

/// `earshot validate --loudness`, a clip's own normalisation (`clips: { id: { file:, loudness:,
/// gain: } }`): its target and the gain its voices start at.
extension ValidateCommand {
    /// `, target -23.0 LUFS: -13.3 dB, then its gain -3.0 dB` (or the silent file left as it
    /// is); empty for a clip without `loudness:` or `gain:`.
    static func clipNormalisation(_ c: SceneClip) throws(EarshotError) -> String {
        var out = ""
        if let n = try c.normalisation(), let target = c.loudness {
            out += n.measured.lufs == nil
                ? ", target \(LoudnessReading.lufs(target)): silent, left as it is"
                : String(format: ", target %@: %+.1f dB", LoudnessReading.lufs(target), n.decibels)
        }
        if c.gainDB != 0 { out += String(format: ", %@ %+.1f dB", out.isEmpty ? "its gain" : "then its gain", c.gainDB) }
        return out
    }
}
