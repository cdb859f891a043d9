import Earshot
import EarshotScenes
import Foundation

/// `earshot validate --loudness`: each clip's loudness (integrated, or max momentary for a clip
/// under 3 s), what a clip's own `loudness:` does to it, and what each sound's `loudness:` does.
extension ValidateCommand {
    func printLoudness(clips: [SceneClip], sounds: [SceneSound]) {
        let paths = Dictionary(clips.map { ($0.id, $0.path) }, uniquingKeysWith: { first, _ in first })
        say("loudness of \(clips.count) clip\(clips.count == 1 ? "" : "s") (integrated; max momentary under \(Int(ClipLoudness.shortClipSeconds)) s):")
        var unreadable = 0
        for c in clips {
            do throws(EarshotError) {
                let l = try ClipLoudness.measure(path: c.path)
                say("  \(c.id): \(LoudnessReading.lufs(l.lufs)) \(l.basis == .integrated ? "integrated" : "max momentary")"
                    + (try Self.clipNormalisation(c)))   // ValidateCommand+ClipLoudness.swift
            } catch {
                unreadable += 1
                say("  \(c.id): not measured: \(error.description)")
            }
        }
        let normalised = sounds.filter { $0.loudness != nil }
        guard !normalised.isEmpty else { return }
        // The sounds' clips as they play (their own `loudness:`, `gain:`): measured above.
        let clipDecibels = Dictionary(clips.compactMap { c in (try? c.playDecibels()).map { (c.id, $0) } },
                                      uniquingKeysWith: { first, _ in first })
        say("normalised sounds:")
        for s in normalised {
            guard let target = s.loudness else { continue }
            do throws(EarshotError) {
                guard let measured = try s.clipLoudness(clipPaths: paths, clipDecibels: clipDecibels) else {
                    say("  \(s.id): silent clips, left as they are (target \(LoudnessReading.lufs(target)))")
                    continue
                }
                say(String(format: "  %@: clips %@, target %@: %+.1f dB, then its gain %+.1f dB", s.id,
                           LoudnessReading.lufs(measured), LoudnessReading.lufs(target), target - measured, s.levelDB))
            } catch {
                say("  \(s.id): not measured: \(error.description)")
            }
        }
    }
}
