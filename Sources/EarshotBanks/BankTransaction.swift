import Earshot
import EarshotContent
import Foundation

/// One save of a bank, prepared and not yet in force: the diff between what the bank holds and
/// the file as read now. Everything that may fail is done while preparing it — the file read and
/// checked, new clips loaded, every sound definition validated, the tracks whose file changed
/// opened — and nothing of it is audible yet; ``SoundBank/commit(_:to:)`` then makes every change
/// in one go, so that a save is heard whole in one frame or not at all.
struct BankTransaction {
    /// The bank as read by this save.
    let bank: SceneBank
    /// Clips by id and by file: the ones in force that the save keeps, and those it loaded.
    let clips: [String: Clip]
    let clipsByPath: [String: Clip]
    /// The clips this save loaded (by file), not yet the bank's: unloaded if it is dropped.
    let newClips: [String: Clip]
    /// The engine definition of each sound, validated.
    let definitions: [String: SoundDefinition]
    /// Tracks opened on their new file for a hand-over (nothing plays yet).
    let replacements: [String: MusicTrack]
    /// What the save changed against the reading before it.
    let changes: BankChanges

    /// Gives back what this transaction took from the engine, for one that will not be applied
    /// (superseded by a later save, or the bank unloaded): its new clips — those `successor`
    /// does not use — and its hand-over tracks.
    func discard(engine: AudioEngine, keeping successor: BankTransaction? = nil) {
        for t in replacements.values { t.stop() }
        for (file, clip) in newClips where successor?.clipsByPath[file] == nil { engine.unload(clip) }
    }
}

extension SoundBank {
    /// Prepares `new` against `c` (what is in force) and `pending` (a save accepted and not yet
    /// applied, whose new clips are reused): what may fail, with nothing audible. On a failure
    /// the clips this call loaded are unloaded and the problem is thrown with its file and line.
    func prepare(
        _ new: SceneBank, against c: BankContents, pending: BankTransaction?
    ) throws(BankError) -> BankTransaction {
        let existing = c.clipsByPath.merging(pending?.newClips ?? [:]) { kept, _ in kept }
        let loaded = try BankLoader.loadClips(new, existing: existing, engine: engine)
        var definitions: [String: SoundDefinition] = [:]
        let clipPaths = Dictionary(new.clips.map { ($0.id, $0.path) }, uniquingKeysWith: { first, _ in first })
        for s in new.sounds {
            var d = BankLoader.definition(s, clips: loaded.byID)
            // A switch's cases are made at the commit (checked by the parser: they exist).
            do throws(EarshotError) {
                d.gain *= try s.loudnessFactor(clipPaths: clipPaths, clipDecibels: loaded.decibels)   // `loudness:`, clips as they play (SceneSound+Loudness.swift)
                if s.switchOn == nil { try d.validate() }
            } catch {
                for clip in loaded.new { engine.unload(clip) }
                let (file, line) = new.origin(of: "sounds.\(s.id)")
                throw .invalid([
                    .invalid(file: file, line: line, column: 1, key: "sounds.\(s.id)", reason: error.description)
                ])
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
        return BankTransaction(
            bank: new, clips: loaded.byID, clipsByPath: loaded.byPath,
            newClips: loaded.byPath.filter { c.clipsByPath[$0.key] == nil },
            definitions: definitions, replacements: replacements,
            changes: Self.changes(from: pending?.bank ?? c.bank, to: new))
    }

    /// Puts `t` in force over `c`: each change an engine call that cannot fail on a live engine,
    /// made one after the other with nothing in between (the caller holds the bank's lock, and a
    /// watched save is committed at the start of the game's `update`, before the frame's mix).
    /// Throws only when the engine is shutting down: what is done stays, the rest goes with it.
    func commit(_ t: BankTransaction, to c: inout BankContents) throws(EarshotError) {
        let new = t.bank
        try BankLoader.defineParameters(new, engine: engine)
        try BankLoader.applyBuses(new, to: &c, engine: engine)
        var sounds: [String: Sound] = [:]
        for s in SceneSound.makingOrder(new.sounds) {   // a switch after its cases
            guard var d = t.definitions[s.id] else { continue }
            if s.switchOn != nil { d = BankLoader.definition(s, clips: t.clips, sounds: sounds) }
            if let existing = c.sounds[s.id] {
                sounds[s.id] = existing.definition == d ? existing : try engine.redefine(existing, as: d)
            } else {
                sounds[s.id] = try engine.makeSound(d)
            }
        }
        try applyClipGains(t, over: c)   // live voices follow a clip's new level (SoundBank+ClipGains.swift)
        for (id, s) in c.sounds where sounds[id] == nil { engine.removeSound(s) }
        c.sounds = sounds
        var snapshots: [String: Snapshot] = [:]
        for s in new.snapshots {
            let snapshot = s.snapshot
            if c.snapshots[s.id] != snapshot { try engine.redefine(snapshot) }
            snapshots[s.id] = snapshot
        }
        let active = Set(engine.activeSnapshots)
        for (id, s) in c.snapshots where snapshots[id] == nil && active.contains(s.name) { engine.end(s) }
        c.snapshots = snapshots
        try applyZones(new, to: &c)
        c.geometry = new.geometry
        applyMusic(new, replacements: t.replacements, to: &c)
        try applyDialogue(new, to: &c)   // SoundBank+Dialogue.swift
        for (file, clip) in c.clipsByPath where t.clipsByPath[file] == nil { engine.unload(clip) }
        c.clips = t.clips
        c.clipsByPath = t.clipsByPath
        c.bank = new
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
                throw .invalid([
                    .invalid(file: file, line: line, column: 1, key: "music.\(m.id)", reason: error.description)
                ])
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
}
