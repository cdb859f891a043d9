import Earshot

/// A music set of a scene: a `music:` entry with `states:` (adaptive music, see
/// `MusicSetDefinition`). Nothing plays until an event starts it or names a state.
///
/// ```yaml
/// music:
///   level:
///     bpm: 120
///     states:
///       explore: { file: explore.wav }
///       combat: { layers: { drums: { file: drums.wav }, bass: { file: bass.wav, gain: 0.5 } } }
///     transitions:
///       - { from: explore, to: combat, at: nextBar, fade: 0.5, curve: equalPower, stinger: hit }
///     stingers:
///       hit: { file: hit.wav }
/// events:
///   - { at: 0, music: level, state: explore }
///   - { at: 2.7, music: level, state: combat }
/// ```
public struct SceneMusicSet: Sendable, Equatable {
    /// The entry's id (its name under `music:`).
    public var id: String
    /// The set, with its files resolved against the scene's folder.
    public var definition: MusicSetDefinition
}

/// What an event does to a music set.
public enum SceneMusicSetAction: Sendable, Equatable {
    /// `state: NAME`: change to that state by the set's transitions (with nothing playing: start
    /// it now).
    case state(String)
    /// `action: play` (with an optional `state:`): start the set in that state (default the
    /// first), or resume it after `action: pause`.
    case play(state: String?)
    /// `action: pause`: pause every track of the set together.
    case pause
    /// `action: stop`: fade out over `fade` seconds (at least 20 ms) and stop.
    case stop(fade: Double)
    /// `stinger: NAME` (with `boundary:`, default `nextBeat`, and `duck:` dB, default 0): a
    /// stinger on the next beat, bar, …, ducking the state under it when `duck` is below 0.
    case stinger(String, boundary: MusicTransition.Boundary, duck: Float = 0)
    /// `layer: NAME, volume: V` (with `fade:` seconds): a stem's gain in every state that has it.
    case layer(String, volume: Float, fade: Double)

    /// A short label for logs and plots.
    public var label: String {
        switch self {
        case .state(let s): return "state \(s)"
        case .play(let s): return "play" + (s.map { " \($0)" } ?? "")
        case .pause: return "pause"
        case .stop: return "stop"
        case .stinger(let s, _, _): return "stinger \(s)"
        case .layer(let l, let v, _): return "layer \(l) \(v)"
        }
    }
}
