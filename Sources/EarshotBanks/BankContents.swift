import Earshot
import EarshotScenes
import Foundation

/// What a loaded bank holds in its engine: the bank as read, and the engine objects made from
/// it, by id. Built by ``BankLoader``; touched under the bank's lock only.
struct BankContents {
    var bank: SceneBank
    /// Clips by id, and by the file each was loaded from (two ids of one file share a clip).
    var clips: [String: Clip] = [:]
    var clipsByPath: [String: Clip] = [:]
    var sounds: [String: Sound] = [:]
    var snapshots: [String: Snapshot] = [:]
    var zones: [String: ReverbZone] = [:]
    var music: [String: SceneMusic] = [:]
    /// Tracks loaded by ``SoundBank/music(_:)``, by id (each loaded at its first call).
    var tracks: [String: MusicTrack] = [:]
    /// Tracks a reload took out (another file, or gone) while they played, fading out: still
    /// the bank's, so that ``SoundBank/unload()`` stops them too. Dropped once they have stopped.
    var retiredTracks: [MusicTrack] = []
    /// Music sets as read, and those made by ``SoundBank/musicSet(_:)`` (at its first call).
    var musicSets: [String: SceneMusicSet] = [:]
    var sets: [String: MusicSet] = [:]
    /// The duckings the bank set, as (target, source) bus names.
    var duckings: Set<BusPair> = []
    /// The buses whose gain the bank set.
    var busGains: Set<String> = []
    /// The buses the bank gave curves.
    var busCurves: Set<String> = []

    struct BusPair: Hashable {
        var target: String
        var source: String
    }

    init(bank: SceneBank) { self.bank = bank }

    /// Decoded bytes of the bank's clips.
    var clipBytes: Int { clipsByPath.values.reduce(0) { $0 + $1.info.byteCount } }
}

/// Turns a `SceneBank` into engine objects — the first load and each reload's new parts —
/// with the same conversions `SceneRenderer` makes for a scene.
enum BankLoader {
    /// The engine sound of `s`, its clips from `clips`.
    /// Its distance settings are its own (`SceneSound.attenuation`: its bank's defaults with its
    /// keys over them), whichever bank includes it.
    static func definition(_ s: SceneSound, clips: [String: Clip]) -> SoundDefinition {
        var d: SoundDefinition
        if s.layers.isEmpty {
            d = SoundDefinition(clips: s.clips.compactMap { clips[$0] }, selection: s.select, weights: s.weights,
                                avoidRepeat: s.avoidRepeat, pitchVariation: s.pitchCents, gainVariation: s.gainDB,
                                gain: s.linearLevel, limit: s.limit, cooldown: s.cooldown, bus: Bus(s.bus),
                                priority: s.priority, loop: s.loop)
            d.curves = s.curves
        } else {
            let layers = s.layers.compactMap { l -> SoundLayer? in
                guard let clip = clips[l.clip] else { return nil }
                return SoundLayer(clip: clip, gain: Float(pow(10, l.gainDB / 20)), pitch: Float(l.pitch), curves: l.curves)
            }
            d = SoundDefinition(layers: layers, curves: s.curves, loop: s.loop, gain: s.linearLevel, limit: s.limit,
                                cooldown: s.cooldown, bus: Bus(s.bus), priority: s.priority)
        }
        d.spatial = s.attenuation.spatial(position: .zero)
        d.name = s.id   // what the monitor shows
        return d
    }

    /// Defines the bank's parameters in the engine (a parameter of that name the game or another
    /// bank defined takes the bank's range, default and seek; its value is kept).
    static func defineParameters(_ bank: SceneBank, engine: AudioEngine) throws(EarshotError) {
        for p in bank.parameters { try engine.defineParameter(p.definition) }
    }

    static func snapshot(_ s: SceneSnapshot) -> Snapshot {
        var gains: [Bus: Double] = [:]
        for (bus, db) in s.gains { gains[Bus(bus)] = db }
        var filters: [Bus: LowPassFilter] = [:]
        for (bus, filter) in s.filters { filters[Bus(bus)] = filter }
        return Snapshot(s.id, busGains: gains, busFilters: filters)
    }

    static func ducking(_ d: SceneBus.Duck) -> Ducking {
        Ducking(level: d.level, attack: d.attack, release: d.release, threshold: d.threshold, hold: d.hold)
    }

    /// Loads the clips of `bank` that `existing` does not hold already (by file), into
    /// `engine`; on a failure unloads those it loaded and throws.
    static func loadClips(_ bank: SceneBank, existing: [String: Clip], engine: AudioEngine) throws(BankError) -> (byID: [String: Clip], byPath: [String: Clip], new: [Clip]) {
        var byID: [String: Clip] = [:], byPath: [String: Clip] = [:], new: [Clip] = []
        for c in bank.clips {
            if let clip = byPath[c.path] ?? existing[c.path] {
                byID[c.id] = clip
                byPath[c.path] = clip
                continue
            }
            do throws(EarshotError) {
                let clip = try engine.loadClip(path: c.path)
                new.append(clip)
                byID[c.id] = clip
                byPath[c.path] = clip
            } catch {
                for clip in new { engine.unload(clip) }
                if error == .engineShutDown { throw .engine(error) }   // not the file's problem
                let (file, line) = bank.origin(of: "clips.\(c.id)")
                throw .invalid([.invalid(file: file, line: line, column: 1, key: "clips.\(c.id)",
                                         reason: "cannot load \(c.path): \(error.description)")])
            }
        }
        return (byID, byPath, new)
    }

    /// Makes the buses of `bank` the engine does not have, and sets their gains and duckings as
    /// the bank says; gains and duckings the bank set before (`contents`) but no longer names are
    /// put back (gain 1, no ducking).
    static func applyBuses(_ bank: SceneBank, to contents: inout BankContents, engine: AudioEngine) throws(EarshotError) {
        for b in bank.buses where !engine.buses.contains(Bus(b.name)) { try engine.addBus(Bus(b.name)) }
        var gains = Set<String>(), duckings = Set<BankContents.BusPair>()
        for b in bank.buses {
            if let db = b.gainDB {
                try engine.setGain(Float(pow(10, db / 20)), for: Bus(b.name))
                gains.insert(b.name)
            }
            for d in b.ducks {
                try engine.setDucking(ducking(d), of: Bus(d.target), by: Bus(b.name))
                duckings.insert(.init(target: d.target, source: b.name))
            }
        }
        var curves = Set<String>()
        for b in bank.buses where !b.curves.isEmpty || contents.busCurves.contains(b.name) {
            try engine.setCurves(b.curves, for: Bus(b.name))
            if !b.curves.isEmpty { curves.insert(b.name) }
        }
        for name in contents.busCurves.subtracting(curves) where !bank.buses.contains(where: { $0.name == name }) {
            try? engine.setCurves([], for: Bus(name))
        }
        contents.busCurves = curves
        for name in contents.busGains.subtracting(gains) { try? engine.setGain(1, for: Bus(name)) }
        for pair in contents.duckings.subtracting(duckings) { try? engine.setDucking(nil, of: Bus(pair.target), by: Bus(pair.source)) }
        contents.busGains = gains
        contents.duckings = duckings
    }
}
