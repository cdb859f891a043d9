import Earshot
import EarshotContent
import Foundation

extension SoundBank {
    /// Reads the bank file (and its includes) again and puts what changed in force, as one
    /// transaction (every change heard from the same frame on, or none) and without restarting
    /// anything that plays:
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
    /// - a changed `dialogue:` (its file, its locale, or the table file saved again — it is
    ///   watched with the bank) sets the new table and locale on the engine; a removed one takes
    ///   the table away; an unchanged one leaves the engine's table and locale as they are.
    ///
    /// A bank file (or an included one) that is empty is refused, never applied: it is what an
    /// editor's truncate-then-write looks like half-way, not an edit that removes every sound.
    /// (With `watch: true` an empty file is read again after each settle for 0.5 s before it is
    /// reported.)
    ///
    /// Called by the game, the changes are in force when it returns. A save seen by the watch
    /// (`watch: true`) is prepared on the watch's thread and applied at the start of the game's
    /// next `AudioEngine.update(deltaTime:)`, before that frame's mix — or at the bank's next call
    /// (`play`, `sound`, …) if that comes first; a later save before then replaces it.
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
        try accept(now: true)
    }

    /// A reload from the watcher: its outcome goes to the events only. False (nothing done) when
    /// a file is empty and this is not the watcher's last try: it asks again after a settle.
    func reloadFromWatcher(lastTry: Bool) -> Bool {
        if !lastTry, emptyFile() != nil { return false }
        do throws(BankError) { _ = try accept(now: false) } catch {}
        return true
    }

    /// Reads the bank, prepares the transaction and either commits it (`now`) or leaves it for
    /// the next frame. A refused save is reported and thrown; one pending stays pending. The event
    /// is sent once the reload lock is free, so that a frame that follows it can take the save.
    private func accept(now: Bool) throws(BankError) -> BankChanges {
        let outcome = serialised { () -> Result<BankChanges, BankError> in
            guard let inForce = storedContents() else { return .failure(.unloaded(bank: path)) }
            if let empty = emptyFile() {
                return .failure(
                    .invalid([
                        .unreadable(
                            .unreadableFile(
                                path: empty,
                                reason: "the file is empty (a save still being written?); the bank keeps what it had"))
                    ]))
            }
            let new: SceneBank
            switch SceneBank.check(path: path) {
            case .success(let b): new = b
            case .failure(let p): return .failure(.invalid(p.problems))
            }
            let pending = pendingTransaction()
            let t: BankTransaction
            do throws(BankError) {
                t = try prepare(new, against: inForce, pending: pending)
            } catch {
                return .failure(error)
            }
            guard replacePending(with: t) else {
                t.discard(engine: engine)
                return .failure(.unloaded(bank: path))
            }
            pending?.discard(engine: engine, keeping: t)
            if now, let error = commitPending() { return .failure(.engine(error)) }
            watch(new.files)
            return .success(t.changes)
        }
        switch outcome {
        case .success(let changes):
            send(.reloaded(changes))
            return changes
        case .failure(.unloaded(let bank)):
            throw .unloaded(bank: bank)
        case .failure(let error):
            send(.rejected(error))
            throw error
        }
    }

    /// Applies the pending transaction, if any, to what the bank holds; the engine's refusal
    /// (it is shutting down) when it made one. The caller holds the reload lock.
    @discardableResult
    func commitPending() -> EarshotError? {
        withStoredContents { (contents: inout BankContents?, pending: inout BankTransaction?) -> EarshotError? in
            guard let t = pending else { return nil }
            pending = nil
            guard var c = contents else {
                t.discard(engine: engine)
                return nil
            }
            defer { contents = c }
            do throws(EarshotError) { try commit(t, to: &c) } catch { return error }
            return nil
        }
    }

    /// The first of the bank's files (the bank, what it includes now, its line table) that is a regular file
    /// with nothing in it; nil when none is. Read, not `stat`ed: a /proc file says size 0.
    func emptyFile() -> String? {
        let files = storedContents()?.bank.files ?? [path]
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

    /// The entries added, changed and removed between two readings of the bank.
    static func changes(from old: SceneBank, to new: SceneBank) -> BankChanges {
        var out = BankChanges()
        func diff<T: Equatable>(_ section: String, _ a: [T], _ b: [T], _ id: (T) -> String) {
            let before = Dictionary(a.map { (id($0), $0) }, uniquingKeysWith: { x, _ in x })
            let after = Dictionary(b.map { (id($0), $0) }, uniquingKeysWith: { x, _ in x })
            for (k, v) in after {
                if let was = before[k] {
                    if was != v { out.changed.append("\(section).\(k)") }
                } else {
                    out.added.append("\(section).\(k)")
                }
            }
            for k in before.keys where after[k] == nil { out.removed.append("\(section).\(k)") }
        }
        diff("clips", old.clips, new.clips, \.id)
        diff("sounds", old.sounds, new.sounds, \.id)
        diff("buses", old.buses, new.buses, \.name)
        diff("snapshots", old.snapshots, new.snapshots, \.id)
        diff("vcas", old.vcas, new.vcas, \.id)
        diff("zones", old.zones, new.zones, \.name)
        diff("music", old.music, new.music, \.id)
        diff("parameters", old.parameters, new.parameters, \.id)
        if old.attenuation != new.attenuation { out.changed.append("attenuation") }
        dialogueChange(from: old, to: new, into: &out)   // SoundBank+Dialogue.swift
        out.added.sort()
        out.changed.sort()
        out.removed.sort()
        return out
    }
}
