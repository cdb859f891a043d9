/// The voices made of several pool voices — a timeline sound's parts (``SoundLayer/Timing``),
/// a following switch's cases (``SoundSwitch/follow``) — each known by its *handle*, the voice
/// the game holds. A ``CoreStage`` after the voices: it notices parts that ended, passes a stop
/// or steal of the handle's own part to the others, cross-fades a following switch whose label
/// changed, and ends the whole when its last part ends (filing it for ``Voice/finished``).
///
/// It talks to the voices only through ``VoiceKernel``. Costs one comparison per frame, and
/// nothing per play of any other sound, while no such voice plays.
final class TimelineTable: CoreStage {
    var phase: CoreStage.Phase { .afterVoices }

    /// A following switch's state: which switch, on which parameter, the label playing.
    struct Follow {
        var switchSlot: Int
        var parameter: Int
        var label: Int
        var fade: Double
        var emitterIndex: Int
    }

    struct Entry {
        /// The voice the game holds (a part's, which may end before the whole).
        var handle: VoiceID
        /// The sound's slot and key (its definition for the tails; stale once removed).
        var soundSlot: Int
        var soundKey: UInt32
        /// Every part started so far (live or ended).
        var parts: [VoiceID]
        /// Layers still to start when the sustain is released.
        var tails: [Int]
        var sustain: VoiceID?
        /// The play's options (the tails and a switch's next case start with them).
        var options: PlayOptions
        /// Each part's own gain and pitch (the handle's gain and pitch scale them): its start
        /// gain — for a play at gain 0, its level as played at gain 1, so that a gain set on the
        /// handle later is heard at that gain.
        var gains: [Float]
        var pitches: [Float]
        /// The game's gain and pitch on the handle (``Voice/gain``): the factor on each part's own,
        /// parts started later (a tail, a switch's next case) included — 0 after a play at gain 0.
        var gainScale: Float = 1
        var pitchScale: Float = 1
        var released = false
        var stopping = false
        /// The handle's own part was let go on purpose (a following switch's cross-fade).
        var handleRetired = false
        var reason: VoiceEndReason = .finished
        var awaited = false
        var follow: Follow?
    }

    private(set) var entries: [Entry] = []
    /// Each entry's position in ``entries``, by handle.
    private var indexByHandle: [VoiceID: Int] = [:]

    /// The most such voices at once (each holds at least one pool voice: the pool's capacity
    /// bounds them; this is the table's own bound, checked before it grows).
    static let maxEntries = 65_536

    var isEmpty: Bool { entries.isEmpty }

    /// The entry of handle `id` (nil: not such a voice, or ended).
    @inline(__always)
    func index(_ id: VoiceID) -> Int? {
        guard !entries.isEmpty else { return nil }
        return indexByHandle[id]
    }

    func entry(_ id: VoiceID) -> Entry? { index(id).map { entries[$0] } }

    /// Files a new voice made of parts; false when the table is full (the parts then play on
    /// as plain voices).
    @discardableResult
    func add(_ e: Entry) -> Bool {
        guard entries.count < Self.maxEntries, indexByHandle[e.handle] == nil else { return false }
        indexByHandle[e.handle] = entries.count
        entries.append(e)
        return true
    }

    /// The status of handle `id` as a whole (nil: not such a voice): real when a part is, else
    /// virtual, else pending; stopped once stopped.
    func status(_ id: VoiceID, pool: some VoiceKernel, now: Double) -> VoiceStatus? {
        guard let k = index(id) else { return nil }
        if entries[k].stopping { return .stopped }
        var best = VoiceStatus.stopped
        for p in entries[k].parts {
            switch pool.status(p, now: now) {
            case .real: return .real
            case .virtual: best = .virtual
            case .pending: if best == .stopped { best = .pending }
            case .stopped, .refused: break
            }
        }
        return best
    }

    /// Calls `body` with every live part of handle `id` but the handle's own (nothing for any
    /// other voice): what the game does to the voice it holds reaches the whole.
    @inline(__always)
    func forEachOtherPart(of id: VoiceID, pool: some VoiceKernel, _ body: (VoiceID) -> Void) {
        guard let k = index(id) else { return }
        for p in entries[k].parts where p != id && pool.slot(p) != nil { body(p) }
    }

    /// Multiplies the own gain of part `id` (a live edit of its clip's gain, whose voice the
    /// caller rescaled): a later gain on its handle scales the new one. Nothing for any other voice.
    func scalePartGain(_ id: VoiceID, by factor: Float) {
        guard !entries.isEmpty else { return }
        for k in entries.indices {
            guard let n = entries[k].parts.firstIndex(of: id) else { continue }
            entries[k].gains[n] = EngineCore.varied(entries[k].gains[n], by: factor)
        }
    }

    /// Sets the own gain and pitch (nil: unchanged) of a part under curves at time `now`, its
    /// curves applied at once; false for a part not under curves (the core's curve table:
    /// ``VoiceCurveTable/setOwn(_:gain:pitch:stage:pool:now:)``). A part's pool values are its
    /// curves' last write, so a value written there equal to it would be lost, and one rendered
    /// before the next frame heard without the curves' factors.
    private var setOwnLevels: ((VoiceID, Float?, Float?, Double) -> Bool)?

    /// Gives the table its way to a part's own levels under curves (the core, once).
    func setOwnLevels(_ body: @escaping (VoiceID, Float?, Float?, Double) -> Bool) { setOwnLevels = body }

    /// Sets part `id`'s gain and pitch (nil: unchanged): under curves as its own, else in the pool.
    private func setPart(_ id: VoiceID, gain: Float?, pitch: Float?, pool: some VoiceKernel, now: Double) {
        guard gain != nil || pitch != nil else { return }
        if setOwnLevels?(id, gain, pitch, now) == true { return }
        if let gain { pool.setGain(id, gain) }
        if let pitch { pool.setPitch(id, pitch, now: now) }
    }

    /// Multiplies the own gain and pitch (nil: unchanged) of part `id` of a following switch (a
    /// live redefinition of its case's sound, whose voice the caller rescaled): a later gain on
    /// its handle scales the new ones. Nothing for any other voice.
    func scaleFollowingPart(_ id: VoiceID, gain: Float?, pitch: Float?) {
        guard !entries.isEmpty else { return }
        for k in entries.indices where entries[k].follow != nil {
            guard let n = entries[k].parts.firstIndex(of: id) else { continue }
            if let gain { entries[k].gains[n] = EngineCore.varied(entries[k].gains[n], by: gain) }
            if let pitch { entries[k].pitches[n] = EngineCore.varied(entries[k].pitches[n], by: pitch) }
        }
    }

    /// The own gain of part `id` (nil: no such part): kept before a live edit of its clip's
    /// gain to 0, which ``scalePartGain(_:by:)`` cannot undo.
    func partGain(_ id: VoiceID) -> Float? {
        guard !entries.isEmpty else { return nil }
        for e in entries { if let n = e.parts.firstIndex(of: id) { return e.gains[n] } }
        return nil
    }

    /// Gives part `id` its own gain `gain` back (after a live edit of its clip's gain to 0).
    func setPartGain(_ id: VoiceID, _ gain: Float) {
        guard !entries.isEmpty else { return }
        for k in entries.indices { if let n = entries[k].parts.firstIndex(of: id) { entries[k].gains[n] = gain } }
    }

    /// The game's gain or pitch on the handle (`factor` × each part's own).
    func scale(_ id: VoiceID, gain: Float?, pitch: Float?, pool: some VoiceKernel, now: Double) -> Bool {
        guard let k = index(id) else { return false }
        if let gain { entries[k].gainScale = gain }
        if let pitch { entries[k].pitchScale = pitch }
        for (n, p) in entries[k].parts.enumerated() where pool.slot(p) != nil {
            setPart(p, gain: gain.map { entries[k].gains[n] * $0 }, pitch: pitch.map { entries[k].pitches[n] * $0 },
                    pool: pool, now: now)
        }
        return true
    }

    /// The game's gain and pitch on handle `id` (nil: not such a voice).
    func scales(_ id: VoiceID) -> (gain: Float, pitch: Float)? {
        index(id).map { (entries[$0].gainScale, entries[$0].pitchScale) }
    }

    /// Stops the whole: every part (a pending one at once), no tail to come.
    func stop(_ id: VoiceID, fade: Double, pool: some VoiceKernel) -> Bool {
        guard let k = index(id) else { return false }
        stop(entry: k, fade: fade, reason: .stopped, pool: pool)
        return true
    }

    private func stop(entry k: Int, fade: Double, reason: VoiceEndReason, pool: some VoiceKernel) {
        entries[k].stopping = true
        entries[k].reason = reason
        entries[k].tails = []
        for p in entries[k].parts { pool.stop(p, fade: fade) }
    }

    /// Marks the handle awaited (``Voice/finished``): false when `id` is no such live voice.
    func awaitEnd(_ id: VoiceID) -> Bool {
        guard let k = index(id) else { return false }
        entries[k].awaited = true
        return true
    }

    /// Releases the whole (``Voice/release()``): every looping part ends its pass. Returns the
    /// seconds until the sustain loop's last frame and the tails to start then (nil: nothing to
    /// start — no sustain, released already, or stopping).
    func release(_ id: VoiceID, pool: some VoiceKernel, now: Double) -> (at: Double, tails: [Int])? {
        guard let k = index(id), !entries[k].released, !entries[k].stopping else { return nil }
        entries[k].released = true
        var sustainEnd: Double?
        for p in entries[k].parts {
            if let d = pool.endLoop(p, now: now), p == entries[k].sustain { sustainEnd = d }
        }
        let tails = entries[k].tails
        entries[k].tails = []
        guard let at = sustainEnd, !tails.isEmpty else { return nil }
        return (at, tails)
    }

    /// A part started later (a tail, a switch's next case), with its own gain and pitch: it is
    /// set to the handle's (``Entry/gainScale``) times those, as the parts already playing are.
    func addPart(_ id: VoiceID, gain: Float, pitch: Float, to handle: VoiceID, pool: some VoiceKernel, now: Double) {
        guard let k = index(handle) else { return }
        entries[k].parts.append(id)
        entries[k].gains.append(gain)
        entries[k].pitches.append(pitch)
        let scales = (gain: entries[k].gainScale, pitch: entries[k].pitchScale)
        setPart(id, gain: scales.gain != 1 ? gain * scales.gain : nil, pitch: scales.pitch != 1 ? pitch * scales.pitch : nil,
                pool: pool, now: now)
    }

    /// Multiplies the own gain and pitch of handle `id`'s parts, each by `factor(part)` (nil:
    /// unchanged; a live redefinition of its sound): a later gain on the handle scales the
    /// new ones. The caller rescales the voices. Nothing for any other voice.
    func scaleParts(of id: VoiceID, _ factor: (VoiceID) -> (gain: Float?, pitch: Float?)) {
        guard let k = index(id) else { return }
        for (n, p) in entries[k].parts.enumerated() {
            let (g, q) = factor(p)
            if let g { entries[k].gains[n] = EngineCore.varied(entries[k].gains[n], by: g) }
            if let q { entries[k].pitches[n] = EngineCore.varied(entries[k].pitches[n], by: q) }
        }
    }

    /// The handles of the sound `key` (only following switches' with `following`), oldest first.
    func handles(ofSound key: UInt32, following: Bool) -> [VoiceID] {
        guard !entries.isEmpty else { return [] }
        return entries.filter { $0.soundKey == key && !$0.stopping && (!following || $0.follow != nil) }.map(\.handle)
    }

    /// Multiplies the gain and pitch of the options the parts still to come start with (a
    /// switch's next case, a timeline's tails) — a live redefinition of the sound above them.
    func scaleOptions(of id: VoiceID, gain: Float?, pitch: Float?) {
        guard let k = index(id) else { return }
        if let gain { entries[k].options.gain = EngineCore.varied(entries[k].options.gain, by: gain) }
        if let pitch { entries[k].options.pitch = EngineCore.varied(entries[k].options.pitch, by: pitch) }
    }

    /// A following switch moved to `label` (its old parts were let go).
    func followed(_ handle: VoiceID, label: Int, retiredHandle: Bool) {
        guard let k = index(handle) else { return }
        entries[k].follow?.label = label
        if retiredHandle { entries[k].handleRetired = true }
    }

    // MARK: The frame

    func step(_ core: EngineCore, time: CoreStage.FrameTime) {
        guard !entries.isEmpty else { return }
        let pool = core.pool
        var k = 0
        while k < entries.count {
            let handle = entries[k].handle
            if !entries[k].stopping, !entries[k].handleRetired, let i = pool.slot(handle),
               pool.status(handle, now: time.now) == .stopped {
                // The handle's part was stopped under the game's handle (its sound's limit
                // stole it, a bus stopped its voices): the whole goes with it.
                stop(entry: k, fade: 0, reason: pool.wasStolen(i) ? .stolen : .stopped, pool: pool)
            }
            if !entries[k].stopping {
                // A timeline's parts held by its sound's limit are heard with its handle.
                if let h = pool.slot(handle), !pool.isHeld(h) {
                    for p in entries[k].parts where p != handle {
                        if let j = pool.slot(p), pool.isHeld(j) { pool.release(held: j) }
                    }
                }
                if let f = entries[k].follow { core.follow(handle, f) }   // Sounds/EngineCore+Switches.swift
            }
            if entries[k].parts.count > 8 { prune(k, pool: pool) }   // a following switch's old cases
            if entries[k].parts.contains(where: { pool.slot($0) != nil }) {
                k += 1
                continue
            }
            let ended = remove(k)   // `entries[k]` is another entry now
            if ended.awaited { pool.fileAwaitedEnd(ended.handle, reason: ended.reason) }
        }
    }

    /// Takes entry `k` out in O(1): the last entry takes its place.
    private func remove(_ k: Int) -> Entry {
        let ended = entries[k]
        let last = entries.count - 1
        if k != last {
            entries[k] = entries[last]
            indexByHandle[entries[k].handle] = k
        }
        entries.removeLast()
        indexByHandle[ended.handle] = nil
        return ended
    }

    /// Forgets entry `k`'s parts that ended (and their gains and pitches): a loop whose label
    /// changes all day keeps only what plays.
    private func prune(_ k: Int, pool: some VoiceKernel) {
        var n = 0
        while n < entries[k].parts.count {
            if pool.slot(entries[k].parts[n]) == nil {
                entries[k].parts.remove(at: n)
                entries[k].gains.remove(at: n)
                entries[k].pitches.remove(at: n)
            } else {
                n += 1
            }
        }
    }

    func teardown(_ core: EngineCore) {
        entries = []
        indexByHandle = [:]
    }
}
