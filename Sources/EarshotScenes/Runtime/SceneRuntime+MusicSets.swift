import Earshot
import Foundation
import Synchronization

/// Bar lines the engine reported (``AudioEngine/observeMarkers(_:)``, on the rendering thread),
/// waiting for the runtime to turn them into scene times; bounded.
final class SceneMusicLog: Sendable {
    static let maxPending = 10_000
    let bars = Mutex<[Double]>([])

    func take() -> [Double] { bars.withLock { b in defer { b.removeAll(keepingCapacity: true) }; return b } }
}

/// A scene's music sets (`music:` entries with `states:`) and the tempo and cues of its plain
/// tracks: loading them, running their events, and the bar lines and state changes a render
/// marks on its plot.
extension SceneRuntime {
    /// Gives the plain tracks their tempo and cues, makes the sets, and listens for bar lines.
    func loadMusicSets() throws(EarshotError) {
        for m in scene.music where m.tempo != nil || !m.cues.isEmpty {
            guard let track = tracks[m.id] else { continue }
            try track.setTempo(m.tempo)
            if !m.cues.isEmpty {
                let listed = m.cues.sorted { $0.key < $1.key }.map {
                    MusicTrack.Cue(name: $0.key, seconds: min($0.value, track.duration))
                }
                try track.setMarkers(track.markers.filter { m.cues[$0.name] == nil } + listed)
            }
        }
        for s in scene.musicSets { musicSets[s.id] = try engine.makeMusicSet(s.definition) }
        guard scene.music.contains(where: { $0.tempo != nil }) || !scene.musicSets.isEmpty else { return }
        let log = SceneMusicLog()
        musicLog = log
        engine.observeMarkers { [weak log] e in
            guard case .bar = e.kind, let log else { return }
            log.bars.withLock { if $0.count < SceneMusicLog.maxPending { $0.append(e.audioTime) } }
        }
    }

    /// Runs a music set's event at scene time `sceneTime`.
    func run(_ id: String, _ action: SceneMusicSetAction, sceneTime: Double) throws(EarshotError) {
        guard let set = musicSets[id] else {
            preconditionFailure("scene music set \(id) was validated but not loaded")  // trap: parser invariant
        }
        let audioNow = engine.audioTime
        switch action {
        case .state(let state):
            let from = set.currentState
            let begins = try set.setState(state)
            if from != state { noteChange(id, from: from, to: state, at: sceneTime + begins - audioNow) }
        case .play(let state):
            if set.currentState != nil, state == nil {
                try set.resume()
            } else {
                let name = state ?? set.stateNames.first
                try set.play(state: state, at: audioNow)
                noteChange(id, from: nil, to: name ?? "", at: sceneTime)
            }
        case .pause:
            set.pause()
        case .stop(let fade):
            set.stop(fade: max(fade, 0.02))
        case .stinger(let name, let boundary, let duck):
            try set.playStinger(name, at: boundary, duck: duck)
        case .layer(let layer, let volume, let fade):
            try set.setLayerGain(volume, layer: layer, fade: fade)
        }
    }

    private func noteChange(_ id: String, from: String?, to: String, at time: Double) {
        stateChanges.append((time, "\(id): " + (from.map { "\($0) → " } ?? "") + to))
        if stateChanges.count > SceneMusicMarks.maxChanges { stateChanges.removeFirst() }
    }

    /// The bar lines reported since the last call, as scene times (`now` is the scene time of
    /// the engine's audio time now).
    func takeBars(sceneTime now: Double) -> [Double] {
        guard let log = musicLog else { return [] }
        let audioNow = engine.audioTime
        return log.take().map { now - (audioNow - $0) }
    }
}
