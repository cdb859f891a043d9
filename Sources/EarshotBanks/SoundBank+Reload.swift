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
    ///   watches the YAML files, not the audio);
    /// - a music track whose file (or bus) changed: the track playing fades out over 0.5 s as the
    ///   new file fades in, from its start (the new one is what ``music(_:)`` returns from then
    ///   on); one that was not playing is loaded anew at the next ``music(_:)``. A track removed
    ///   from the bank fades out. ``unload()`` stops them all, fading or not.
    ///
    /// A bank file (or an included one) that is empty is refused, never applied: it is what an
    /// editor's truncate-then-write looks like half-way, not an edit that removes every sound.
    /// (With `watch: true` an empty file is read again after each settle for 0.5 s before it is
    /// reported.)
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
            if let empty = emptyFile() {
                let error = BankError.invalid([.unreadable(.unreadableFile(
                    path: empty, reason: "the file is empty (a save still being written?); the bank keeps what it had"))])
                send(.rejected(error))
                throw error
            }
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

    /// A reload from the watcher: its outcome goes to the events only. False (nothing done) when
    /// a file is empty and this is not the watcher's last try: it asks again after a settle.
    func reloadFromWatcher(lastTry: Bool) -> Bool {
        if !lastTry, emptyFile() != nil { return false }
        do throws(BankError) { _ = try reload() } catch {}
        return true
    }

    /// The first of the bank's files (the bank and what it includes now) that is a regular file
    /// with nothing in it; nil when none is. Read, not `stat`ed: a /proc file says size 0.
    func emptyFile() -> String? {
        let files = [path] + (definition?.includedFiles ?? [])
        for file in files {
            var st = stat()
            guard stat(file, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            let fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { continue }
            var byte: UInt8 = 0
            let n = read(fd, &byte, 1)
            close(fd)
            if n == 0 { return file }
        }
        return nil
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
            let replacements: [String: MusicTrack]
            do throws(BankError) {
                replacements = try loadReplacedTracks(new, c)
            } catch {
                for clip in loaded.new { engine.unload(clip) }
                throw error
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
                applyMusic(new, replacements: replacements, to: &c)
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

    /// The tracks that play now and whose file or bus the edit changes, opened on their new
    /// file (nothing plays yet): what may fail, before anything changes.
    private func loadReplacedTracks(_ new: SceneBank, _ c: BankContents) throws(BankError) -> [String: MusicTrack] {
        var out: [String: MusicTrack] = [:]
        for m in new.music {
            guard let track = c.tracks[m.id], let old = c.music[m.id], old.path != m.path || old.bus != m.bus,
                  track.isPlaying || track.isWaitingToPlay else { continue }
            do throws(EarshotError) {
                out[m.id] = try engine.loadMusic(path: m.path, bus: Bus(m.bus))
            } catch {
                for t in out.values { t.stop() }
                if error == .engineShutDown { throw .engine(error) }
                let (file, line) = new.origin(of: "music.\(m.id)")
                throw .invalid([.invalid(file: file, line: line, column: 1, key: "music.\(m.id)", reason: error.description)])
            }
        }
        return out
    }

    /// Seconds a track whose file changed (or that was removed) fades out over, as the new one fades in.
    static let trackHandover = 0.5

    private func applyMusic(_ new: SceneBank, replacements: [String: MusicTrack], to c: inout BankContents) {
        var music: [String: SceneMusic] = [:]
        for m in new.music { music[m.id] = m }
        c.retiredTracks.removeAll { !$0.isPlaying }
        for (id, track) in c.tracks {
            guard let m = music[id], m.path == c.music[id]?.path, m.bus == c.music[id]?.bus else {
                // Gone or another file: the old track must not play on, forgotten. One playing
                // hands over to its new file (or fades out); the next music(_:) returns the new.
                c.tracks[id] = nil
                guard track.isPlaying || track.isWaitingToPlay else {
                    track.stop()
                    replacements[id]?.stop()   // opened for a hand-over that no longer happens
                    continue
                }
                if let replacement = replacements[id], let m = music[id] {
                    do throws(EarshotError) {
                        try m.apply(to: replacement)
                        try track.crossfade(to: replacement, duration: Self.trackHandover)
                        c.tracks[id] = replacement
                    } catch {
                        // A loop region the new file cannot hold, or a dying engine: the new one
                        // is dropped (the next music(_:) loads it anew), the old one fades out.
                        replacement.stop()
                        track.fade(to: 0, duration: Self.trackHandover, stopsAtEnd: true)
                    }
                } else {
                    track.fade(to: 0, duration: Self.trackHandover, stopsAtEnd: true)
                }
                c.retiredTracks.append(track)
                continue
            }
            // Its loop region was checked against this file by the bank's validation; one that no
            // longer fits (the file changed under it) leaves the track to be loaded anew — a
            // playing one fades out, kept for unload() to stop, never forgotten while heard.
            if m != c.music[id] {
                do throws(EarshotError) { try m.apply(to: track) } catch {
                    c.tracks[id] = nil
                    if track.isPlaying || track.isWaitingToPlay {
                        track.fade(to: 0, duration: Self.trackHandover, stopsAtEnd: true)
                        c.retiredTracks.append(track)
                    } else {
                        track.stop()
                    }
                }
            }
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
