import Earshot
import EarshotScenes
import Foundation

extension SoundBank {
    /// Reads the bank file (and its includes) again and puts what changed in force, within one
    /// frame and without restarting anything that plays:
    ///
    /// - a changed sound keeps its voices: their gain follows the new `gain:` at once (each
    ///   voice's own factor and variation kept, `AudioEngine.redefine(_:as:)`); its next plays
    ///   take every new value — clips, selection, variation, `limit:` (counting the voices
    ///   playing now), `cooldown:`, bus, priority;
    /// - an added sound is playable; a removed one can no longer be played (its voices stop with
    ///   its clips when no sound of the bank uses them any more);
    /// - bus gains and duckings change at once; a gain or ducking the bank no longer names is put
    ///   back (gain 0 dB, no ducking);
    /// - an active snapshot takes its new gains and filters at its present weight
    ///   (`AudioEngine.redefine(_:)`); a removed one ends;
    /// - a reverb zone the game put in the engine changes there; a music track the bank loaded
    ///   takes its new volume, loops and rate;
    /// - clips are kept by file: a new path loads, a path no sound uses any more is unloaded; an
    ///   audio file saved again under the same path is read at the bank's next load (a reload
    ///   watches the YAML files, not the audio).
    ///
    /// An edit with a problem — a YAML or schema error, a clip that does not load — changes
    /// nothing: the bank keeps what it had, the problems are sent on ``events`` as
    /// ``BankEvent/rejected(_:)`` (`FILE:LINE:COLUMN: key: reason`) and thrown. A reload that
    /// takes effect is sent as ``BankEvent/reloaded(_:)`` and returns what changed.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// let bank = try SoundBank(path: "Demos/Bank/game.yaml", engine: engine)
    /// // … the designer saves the file …
    /// do {
    ///     print(try bank.reload())   // e.g. "changed sounds.footstep"
    /// } catch {
    ///     print(error)               // game.yaml:12:11: sounds.footstep.gain: 99 is out of range …
    /// }
    /// ```
    @discardableResult
    public func reload() throws(BankError) -> BankChanges {
        try serialised { () throws(BankError) -> BankChanges in
            guard isLoaded else { throw .unloaded(bank: path) }
            let new: SceneBank
            switch SceneBank.check(path: path) {
            case .success(let b): new = b
            case .failure(let p):
                let error = BankError.invalid(p.problems)
                send(.rejected(error))
                throw error
            }
            let changes: BankChanges
            do throws(BankError) {
                changes = try apply(new)
            } catch {
                send(.rejected(error))
                throw error
            }
            watch(new.files)
            send(.reloaded(changes))
            return changes
        }
    }

    /// A reload from the watcher: its outcome goes to the events only.
    func reloadQuietly() {
        do throws(BankError) { _ = try reload() } catch {}
    }

    /// Puts `new` in force over what the bank holds: first what may fail (clips, definitions),
    /// with nothing visible yet; then the changes, each an engine call that cannot fail on a
    /// live engine.
    private func apply(_ new: SceneBank) throws(BankError) -> BankChanges {
        try withContents { (contents: inout BankContents?) throws(BankError) -> BankChanges in
            guard var c = contents else { throw .unloaded(bank: path) }
            let loaded = try BankLoader.loadClips(new, existing: c.clipsByPath, engine: engine)
            var definitions: [String: SoundDefinition] = [:]
            for s in new.sounds {
                let d = BankLoader.definition(s, clips: loaded.byID)
                do throws(EarshotError) { try d.validate() } catch {
                    for clip in loaded.new { engine.unload(clip) }
                    let (file, line) = new.origin(of: "sounds.\(s.id)")
                    throw .invalid([.invalid(file: file, line: line, column: 1, key: "sounds.\(s.id)", reason: error.description)])
                }
                definitions[s.id] = d
            }
            let changes = Self.changes(from: c.bank, to: new)
            do throws(EarshotError) {
                try BankLoader.defineParameters(new, engine: engine)
                try BankLoader.applyBuses(new, to: &c, engine: engine)
                var sounds: [String: Sound] = [:]
                for s in new.sounds {
                    guard let d = definitions[s.id] else { continue }
                    if let existing = c.sounds[s.id] {
                        sounds[s.id] = existing.definition == d ? existing : try engine.redefine(existing, as: d)
                    } else {
                        sounds[s.id] = try engine.makeSound(d)
                    }
                }
                for (id, s) in c.sounds where sounds[id] == nil { engine.removeSound(s) }
                c.sounds = sounds
                var snapshots: [String: Snapshot] = [:]
                for s in new.snapshots {
                    let snapshot = BankLoader.snapshot(s)
                    if c.snapshots[s.id] != snapshot { try engine.redefine(snapshot) }
                    snapshots[s.id] = snapshot
                }
                let active = Set(engine.activeSnapshots)
                for (id, s) in c.snapshots where snapshots[id] == nil && active.contains(s.name) { engine.end(s) }
                c.snapshots = snapshots
                try applyZones(new, to: &c)
                applyMusic(new, to: &c)
            } catch {
                // Only a dying engine refuses these: what is done stays, the rest is gone with it.
                contents = c
                throw .engine(error)
            }
            for (file, clip) in c.clipsByPath where loaded.byPath[file] == nil { engine.unload(clip) }
            c.clips = loaded.byID
            c.clipsByPath = loaded.byPath
            c.bank = new
            contents = c
            return changes
        }
    }

    private func applyZones(_ new: SceneBank, to c: inout BankContents) throws(EarshotError) {
        var zones: [String: ReverbZone] = [:]
        for z in new.zones { zones[z.name] = z }
        let inEngine = engine.reverbZones
        var changed = false
        var out: [ReverbZone] = []
        for z in inEngine {
            guard let old = c.zones[z.name], old == z else { out.append(z); continue }   // not ours
            if let updated = zones[z.name] {
                out.append(updated)
                changed = changed || updated != z
            } else {
                changed = true   // removed from the bank
            }
        }
        if changed { try engine.setReverbZones(out) }
        c.zones = zones
    }

    private func applyMusic(_ new: SceneBank, to c: inout BankContents) {
        var music: [String: SceneMusic] = [:]
        for m in new.music { music[m.id] = m }
        for (id, track) in c.tracks {
            guard let m = music[id], m.path == c.music[id]?.path, m.bus == c.music[id]?.bus else {
                c.tracks[id] = nil   // gone or another file: the next music(_:) loads it anew
                continue
            }
            if m != c.music[id] { Self.apply(m, to: track) }
        }
        c.music = music
        // A music set plays on as it was made; one edited or gone is made anew at the next
        // musicSet(_:) (the one playing stops then, for the new one to take over).
        var sets: [String: SceneMusicSet] = [:]
        for s in new.musicSets { sets[s.id] = s }
        for (id, set) in c.sets where sets[id] != c.musicSets[id] { set.stop(fade: 0.5); c.sets[id] = nil }
        c.musicSets = sets
    }

    /// The entries added, changed and removed between two readings of the bank.
    static func changes(from old: SceneBank, to new: SceneBank) -> BankChanges {
        var out = BankChanges()
        func diff<T: Equatable>(_ section: String, _ a: [T], _ b: [T], _ id: (T) -> String) {
            let before = Dictionary(a.map { (id($0), $0) }, uniquingKeysWith: { x, _ in x })
            let after = Dictionary(b.map { (id($0), $0) }, uniquingKeysWith: { x, _ in x })
            for (k, v) in after {
                if let was = before[k] { if was != v { out.changed.append("\(section).\(k)") } } else { out.added.append("\(section).\(k)") }
            }
            for k in before.keys where after[k] == nil { out.removed.append("\(section).\(k)") }
        }
        diff("clips", old.clips, new.clips, \.id)
        diff("sounds", old.sounds, new.sounds, \.id)
        diff("buses", old.buses, new.buses, \.name)
        diff("snapshots", old.snapshots, new.snapshots, \.id)
        diff("zones", old.zones, new.zones, \.name)
        diff("music", old.music, new.music, \.id)
        diff("parameters", old.parameters, new.parameters, \.id)
        if old.attenuation != new.attenuation { out.changed.append("attenuation") }
        out.added.sort()
        out.changed.sort()
        out.removed.sort()
        return out
    }
}
