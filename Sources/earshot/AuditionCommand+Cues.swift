import ArgumentParser
import Earshot
import EarshotBanks
import Foundation

/// `earshot audition`'s cues: `--every`/`--count` retriggers, `--set` parameters by label or
/// value, `--release` of a sustain point, and a music set's `--state` changes.
extension AuditionCommand {
    /// What the audition does over its time, worked through one game frame at a time.
    struct Cues {
        var nextPlay = 0.0
        var played = 0
        var states: [(name: String, at: Double)] = []
        var released = false
        var music: MusicSet?
    }

    /// The most plays `--count` asks.
    static let maxCount = 100_000

    /// `--set NAME=VALUE`: the name and the value as written.
    static func parseSet(_ text: String) -> (name: String, value: String)? {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return (parts[0], parts[1])
    }

    /// `--state NAME@SECONDS`.
    static func parseState(_ text: String) -> (name: String, at: Double)? {
        let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, let t = Double(parts[1]), t.isFinite, (0...3600).contains(t) else {
            return nil
        }
        return (parts[0], t)
    }

    func validateCues() throws {
        if let every, !(every.isFinite && (0.01...3600).contains(every)) {
            throw ValidationError("--every \(Self.f(every)): must be 0.01…3600 seconds")
        }
        if let count, !(1...Self.maxCount).contains(count) {
            throw ValidationError("--count \(count): must be 1…\(Self.maxCount)")
        }
        if let release, !(release.isFinite && (0...3600).contains(release)) {
            throw ValidationError("--release \(Self.f(release)): must be 0…3600 seconds")
        }
        for s in sets where Self.parseSet(s) == nil {
            throw ValidationError("--set \(s): expected NAME=VALUE (a label or a number, e.g. surface=wood)")
        }
        for s in states where Self.parseState(s) == nil {
            throw ValidationError("--state \(s): expected NAME@SECONDS (e.g. combat@4, SECONDS 0…3600)")
        }
    }

    /// The time the cues need (the last retrigger and state change, and a second after).
    var cueSpan: Double {
        var span = 0.0
        if let every, let count { span = max(span, every * Double(count - 1) + 1) }
        for s in states.compactMap(Self.parseState) { span = max(span, s.at + 1) }
        if let release { span = max(span, release + 1) }
        return span
    }

    /// The cues for `bank`: `--set` applied now (a label for a labelled parameter), and the music
    /// set made when SOUND names one. Exits 1 on a bad name or value.
    func makeCues(_ bank: SoundBank) throws -> Cues {
        var cues = Cues()
        let engine = bank.engine
        for text in sets {
            guard let (name, value) = Self.parseSet(text) else { continue }
            do throws(EarshotError) {
                let labelled = engine.parameterDefinitions.first { $0.name == name }.map { !$0.labels.isEmpty } ?? false
                if !labelled, let v = Double(value), v.isFinite {
                    try engine.setParameter(name, v, ramp: 0)
                } else {
                    try engine.setParameter(name, value)
                }
            } catch {
                fail("--set \(text): \(error.cliDescription)")
            }
        }
        cues.states = states.compactMap(Self.parseState).sorted { $0.at < $1.at }
        if bank.musicSetNames.contains(sound) {
            do throws(BankError) { cues.music = try bank.musicSet(sound) } catch { fail(error.description) }
        } else if !cues.states.isEmpty {
            fail("--state: \(sound) is a sound, not a music set of \(bank.path) (its music sets: "
                 + (bank.musicSetNames.isEmpty ? "none" : bank.musicSetNames.joined(separator: ", ")) + ")")
        }
        return cues
    }

    /// One game frame from `now` (seconds since the audition began) for `span` seconds: the
    /// music set's state changes due, the release, and the sound's plays — at `--every`'s times
    /// to the frame (a delay into the frame), else again when the last play ended.
    func cue(_ cues: inout Cues, _ voice: inout Voice?, now: Double, span: Double, _ bank: SoundBank) throws {
        if let music = cues.music {
            if cues.played == 0 {
                let first = cues.states.first { $0.at == 0 }?.name
                try music.play(state: first)
                cues.played = 1
                cues.states.removeAll { $0.at == 0 }
            }
            while let s = cues.states.first, s.at < now + span {
                cues.states.removeFirst()
                try bank.setMusicState(s.name, of: sound)
            }
            return
        }
        if let release, !cues.released, release < now + span, let v = voice {
            cues.released = true
            v.release()
        }
        if let count, cues.played >= count { return }
        if let every {
            while cues.nextPlay < now + span, count.map({ cues.played < $0 }) ?? true {
                var options = SoundPlayOptions()
                options.delay = max(0, cues.nextPlay - now)
                voice = try bank.play(sound, options: options) ?? voice
                cues.played += 1
                cues.nextPlay = every * Double(cues.played)
            }
            return
        }
        if let v = voice, v.isPlaying { return }
        if let v = try bank.play(sound) {
            voice = v
            cues.played += 1
        }
    }
}
