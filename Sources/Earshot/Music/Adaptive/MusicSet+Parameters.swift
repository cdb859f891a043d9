import Foundation

/// Stems that follow game parameters (``MusicLayer/curves``): a layered state's drums that come
/// in with `intensity`, as Wwise's RTPC-driven stem volumes and FMOD's parameter-automated tracks.
extension MusicSet {
    /// The parameters the stems of `definition` follow, each once.
    static func parameters(followedIn definition: MusicSetDefinition) -> [String] {
        var names: [String] = []
        for state in definition.states {
            guard case .layers(let layers) = state.content else { continue }
            for l in layers { for c in l.curves where !names.contains(c.parameter) { names.append(c.parameter) } }
        }
        return names
    }

    /// Sets each following stem's curve gain from the parameters' global `values` (a parameter
    /// not defined counts as none of its curves) and moves a stem whose gain changed to its new
    /// volume over 50 ms. Called by the music system after each frame and before each loopback
    /// render, with no lock held (the values are read before the set's lock is taken).
    func followParameters(_ values: [String: Double]) {
        lock.withLock { inner in
            for state in definition.states {
                guard case .layers(let layers) = state.content else { continue }
                for l in layers where !l.curves.isEmpty {
                    var db = 0.0
                    for c in l.curves { if let x = values[c.parameter] { db += c.value(at: x) } }
                    let g = Float(pow(10, db / 20))
                    let key = Inner.key(state.name, l.name)
                    guard abs(g - (inner.curveGains[key] ?? 1)) > 1e-5 else { continue }
                    inner.curveGains[key] = g
                    let volume = inner.stemVolume(state.name, l.name)
                    for p in inner.parts[state.name] ?? [] where p.layer == l.name && !inner.leaving.contains(where: { $0 === p.track }) {
                        if p.track.isPlaying { p.track.fade(to: volume, duration: 0.05) } else { p.track.volume = volume }
                    }
                }
            }
        }
    }
}
