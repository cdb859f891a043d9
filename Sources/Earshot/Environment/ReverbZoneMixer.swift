import COpenAL

/// Keeps an engine's auxiliary effect slots in step with its reverb zones and the listener.
///
/// One slot (with one EAX reverb effect) per send. Each ``step(listener:elapsed:)``, in playback
/// time, asks ``ZoneBlend`` which zones the sends should carry and glides toward that: a zone
/// keeps the slot it already has; a zone that is no longer chosen fades its slot out, and only
/// a silent slot takes a new zone (its preset loaded while silent, then faded in), so a slot
/// never switches reverb audibly. Gains move by at most `elapsed / glideTime` per step and pans
/// by the same fraction of the way, so no step is large enough to click or zip.
///
/// Touched only under the AL lock with its context current (like everything in EngineCore).
final class ReverbZoneMixer {
    struct SlotState: Equatable {
        /// The zone the slot holds (by name), or nil when it is free.
        var zone: String?
        var gain: Float = 0
        var pan: Vector3 = .zero
        /// The gain and pan last sent to OpenAL.
        var sentGain: Float = -1
        var sentPan: Vector3 = Vector3(.nan, 0, 0)
        /// The cross-fade values of the reverb last sent (``ReverbDomain/crossFadeKey(_:)``).
        var sentFadeKey: ReverbDomain.CrossFadeKey?
    }

    /// How many times a slot was sent a reverb whose cross-fade values changed: each starts
    /// OpenAL Soft's delay-line cross-fade, which the engine's render must respect.
    private(set) var crossFades = 0

    /// The zones, in the order given (their names are unique).
    private(set) var zones: [ReverbZone] = []
    /// The slots, one per send (empty without EFX).
    private(set) var slots: [ALuint] = []
    private var effects: [ALuint] = []
    private(set) var states: [SlotState] = []
    /// Seconds for a slot's gain to glide from 0 to 1 (and for a pan to arrive).
    let glideTime: Double

    /// Creates `sends` slots with their reverb effects (none when `sends` is 0).
    init(sends: Int, glideTime: Double = 0.05) throws(EarshotError) {
        self.glideTime = glideTime
        try makeObjects(count: sends)
    }

    private func makeObjects(count: Int) throws(EarshotError) {
        (slots, effects) = try ReverbSlots.make(count: count, gain: 0)
        states = Array(repeating: SlotState(), count: count)
    }

    /// Replaces the zones. Zones still present keep their slots; the others fade out.
    func setZones(_ zones: [ReverbZone]) {
        self.zones = zones
    }

    /// Whether a step could change anything (some zone exists or some slot still sounds).
    var isActive: Bool { !zones.isEmpty || states.contains { $0.zone != nil } }

    /// Storage reused every step (a steady frame allocates nothing).
    private var targets: [ZoneBlend.Send] = []
    private var candidates: [ZoneBlend.Candidate] = []
    private var placed: [Bool] = []

    /// Advances the glides by `elapsed` seconds of playback toward what `listener` should hear.
    func step(listener: Listener, elapsed: Double) throws(EarshotError) {
        guard !slots.isEmpty, isActive else { return }
        ZoneBlend.mix(zones: zones, listener: listener, sends: slots.count, into: &targets, scratch: &candidates)
        let maxStep = Float(glideTime > 0 ? min(1, elapsed / glideTime) : 1)
        placed.removeAll(keepingCapacity: true)
        for _ in targets.indices { placed.append(false) }

        // Slots keep their zones; zones no longer wanted fade out.
        for i in states.indices {
            guard let name = states[i].zone else { continue }
            if let t = targets.firstIndex(where: { zones[$0.zone].name == name }) {
                placed[t] = true
                glide(i, toward: targets[t].gain, pan: targets[t].pan, by: maxStep)
            } else {
                glide(i, toward: 0, pan: states[i].pan, by: maxStep)
                if states[i].gain == 0 { states[i].zone = nil }
            }
        }
        // New zones take free (silent) slots, nearest first; they wait if none is free yet.
        for t in targets.indices where !placed[t] {
            guard let free = states.firstIndex(where: { $0.zone == nil }) else { break }
            states[free] = SlotState(zone: zones[targets[t].zone].name, gain: 0, pan: targets[t].pan)
            glide(free, toward: targets[t].gain, pan: targets[t].pan, by: maxStep)
        }
        try apply()
    }

    private func glide(_ i: Int, toward gain: Float, pan: Vector3, by maxStep: Float) {
        let g = states[i].gain
        states[i].gain = abs(gain - g) <= maxStep ? gain : g + (gain > g ? maxStep : -maxStep)
        states[i].pan = states[i].pan + (pan - states[i].pan) * maxStep
    }

    /// Sends what changed to OpenAL: the effect (preset and pan) when the pan moved or the zone
    /// changed, the slot gain when it moved.
    private func apply() throws(EarshotError) {
        for i in states.indices {
            let s = states[i]
            if let name = s.zone, let zone = zones.first(where: { $0.name == name }),
               !(s.sentPan == s.pan) || s.sentGain < 0 {
                try EFX.setReverb(effects[i], zone.reverb, pan: s.pan)
                try EFX.attach(effects[i], to: slots[i])
                states[i].sentPan = s.pan
                let key = ReverbDomain.crossFadeKey(zone.reverb)
                if key != s.sentFadeKey {
                    states[i].sentFadeKey = key
                    crossFades += 1
                }
            }
            if s.sentGain != s.gain {
                try EFX.setSlotGain(slots[i], s.gain)
                states[i].sentGain = s.gain
            }
        }
    }

    /// Deletes the slots and effects (the sources routed to them must be unrouted first).
    func teardown() {
        ReverbSlots.delete(slots: slots, effects: effects)
        slots = []
        effects = []
        states = []
    }

    /// Makes new slots and effects on the current context (after a device was reopened) and
    /// sends them the state the old ones had, so the environment sounds as before the loss.
    func rebuild(sends: Int) throws(EarshotError) {
        let kept = states
        try makeObjects(count: sends)
        for i in states.indices where i < kept.count {
            states[i] = kept[i]
            states[i].sentGain = -1
            states[i].sentPan = Vector3(.nan, 0, 0)
            states[i].sentFadeKey = nil   // new slots: a new reverb state, which fades in
        }
        try apply()
    }
}
