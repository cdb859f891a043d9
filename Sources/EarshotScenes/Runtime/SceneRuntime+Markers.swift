import Earshot
import Foundation

/// Events at a named voice's markers (`{ at: { marker: line1.hit }, play: boom }`).
///
/// A named play of a *clip* passes its markers at times known when it starts: marker frame `f`
/// of pass `k` is heard `(k · frames + f − offset) / (rate × pitch)` after the play — so its
/// followers go on the timeline at once, on their exact frames offline, every pass of its loops.
/// A play of a sound (its clip is picked inside the engine), or a voice an interruption held,
/// is followed as the engine reports its markers (``AudioEngine/observeMarkers(_:)``, with each
/// marker's exact audio time): at that time plus the delay, or at once when that is already past.
extension SceneRuntime {
    /// Places the marker followers of the clip voice `name` that started at scene time `start`.
    func placeMarkerFollowers(of name: String, clip: Clip, startingAt start: Double, _ p: ScenePlay) {
        guard let followers = after.markerWaiting[name], !clip.markers.isEmpty else { return }
        let rate = Double(clip.info.sampleRate) * Double(p.pitch)
        let frames = clip.info.frameCount
        guard rate > 0, frames > 0 else { return }
        let offset = (p.offset * Double(clip.info.sampleRate)).rounded(.down)
        // The clip's markers by name, once: not every marker scanned for every follower.
        var byName: [String: [Marker]] = [:]
        for m in clip.markers { byName[m.name, default: []].append(m) }
        for i in followers {
            let f = scene.followUps[i].after
            guard let name = f.marker, let markers = byName[name] else { continue }
            for m in markers {
                for pass in 0...p.loops {
                    let position = Double(pass * frames + m.frame) - offset
                    guard position >= 0 else { continue }   // before the offset, on the first pass
                    // On the frame grid, as a render places it.
                    let t =
                        ((start + position / rate) * Double(engine.sampleRate)).rounded() / Double(engine.sampleRate)
                    guard t + f.delay <= scene.duration else { break }  // later passes are later still
                    placeFollowUp(i, at: t + f.delay)
                }
            }
        }
    }

    /// After each update: the markers the engine reported for named voices whose followers are
    /// not on the timeline already.
    func processMarkers(sceneTime now: Double) {
        guard let reports = after.markers?.take(), !reports.isEmpty else { return }
        let audioNow = engine.audioTime
        let rate = Double(engine.sampleRate)
        for report in reports {
            guard let voice = report.voice, let marker = report.name,
                  let name = after.names[voice], let entry = after.playing[name], !entry.markersPlaced else { continue }
            let at = ((now - (audioNow - report.audioTime)) * rate).rounded() / rate
            for i in after.markerWaiting[name] ?? [] where scene.followUps[i].after.marker == marker {
                placeFollowUp(i, at: max(now, at + scene.followUps[i].after.delay))
            }
        }
    }
}
