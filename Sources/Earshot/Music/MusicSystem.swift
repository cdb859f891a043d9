/// Music over the engine's stream layer: the ``StreamSystem`` (its sources, queues, pump, clock,
/// holds, device loss and sample-aligned groups) plus what only music has — the music sets it
/// ticks before every loopback render and after every game frame. Tracks, sets, tempo, bars,
/// transitions and stingers live in this folder; decoding, queueing, pumping, underruns and
/// source starts in Sources/Earshot/Streams.
///
/// The engine holds one (``AudioEngine/Configuration/musicSources`` sources); it is the engine's
/// ``EngineSubsystem`` for every stream (MusicSystem+Subsystem.swift).
final class MusicSystem: StreamSystem, @unchecked Sendable {
    // @unchecked Sendable: `adaptiveSets` has its own lock; the rest is StreamSystem's.

    /// The engine's music sets (``MusicSet``), held weakly, ticked before each loopback render and
    /// after each game frame (``tickSets(engine:)``). Their own lock, taken before any set's.
    let adaptiveSets = Locked<[WeakMusicSet]>([])

    /// The stream lock, under music's name (what music's callers and the monitor take).
    func withMusicLock<R, E: Error>(_ body: (inout [Pending]) throws(E) -> R) throws(E) -> R {
        try withStreamLock(body)
    }

    /// Ticks every music set of the engine (no lock held): a change pending while the set's
    /// music is held by its bus (paused, an interruption) is put aside, and planned again from
    /// where the music is once the hold ends. Allocates nothing when no set has work.
    func tickSets(engine: AudioEngine) {
        let sets = adaptiveSets.withLock { list -> [WeakMusicSet] in
            guard !list.isEmpty else { return [] }
            if list.contains(where: { $0.set == nil }) { list.removeAll { $0.set == nil } }
            return list
        }
        for s in sets {
            guard let set = s.set else { continue }
            set.tick()
            let followed = set.followedParameters
            if !followed.isEmpty {
                var values: [String: Double] = [:]
                for name in followed { values[name] = (try? engine.parameter(name)) ?? nil }
                set.followParameters(values)
            }
        }
    }

    func register(_ set: MusicSet) {
        adaptiveSets.withLock { $0.append(WeakMusicSet(set: set)) }
    }
}

/// A music set the music system ticks, held weakly.
struct WeakMusicSet {
    weak var set: MusicSet?
}

/// Music talks to the engine through the stream layer's narrow host protocol.
typealias MusicHost = StreamHost
