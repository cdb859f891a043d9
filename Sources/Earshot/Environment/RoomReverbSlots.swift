import COpenAL

/// The slots that carry *other* rooms' reverbs (Rooms/): a voice in a room the listener is not
/// in sends its last zone send here, to the reverb of its own room, which the listener hears
/// from that room's portal (the EAX reflections and late reverb pan).
///
/// A few channels (``count``), each one slot with one EAX reverb effect, lent by the rooms to
/// the rooms that have voices in them. A channel's reverb is sent again only when it changes
/// (a new room: OpenAL Soft 1.19.1 cross-fades its delay lines, which ``set(channel:reverb:pan:)``
/// reports) or when its pan moves by more than ``panStep``: 1.19.1 recomputes the pan gains only
/// when the effect is attached to the slot again (`ReverbState_update` → `Update3DPanning`), and
/// ramps them over the next mix, so a pan change costs one attach and makes no click.
///
/// Touched only under the AL lock with its context current (like everything in EngineCore).
final class RoomReverbSlots {
    /// Channels: two other rooms ringing at once (the nearest that have voices), beyond which a
    /// voice feeds only the listener's room's reverb.
    static let count = 2
    /// The smallest pan move sent (length in EAX pan units, 0…1).
    static let panStep: Float = 0.02

    private struct Channel {
        var reverb: ReverbProperties?
        var pan = Vector3.zero
        var sentPan = Vector3(.nan, 0, 0)
    }

    private(set) var slots: [ALuint] = []
    private var effects: [ALuint] = []
    private var channels: [Channel] = []

    init() throws(EarshotError) { try makeObjects() }

    private func makeObjects() throws(EarshotError) {
        (slots, effects) = try ReverbSlots.make(count: Self.count, gain: 1)
        if channels.count != Self.count { channels = [Channel](repeating: Channel(), count: Self.count) }
    }

    /// Channel `k` rings with `reverb`, heard from `pan` (listener's EAX frame; length 0 all
    /// around, 1 a point). Returns whether OpenAL Soft starts a delay-line cross-fade.
    func set(channel k: Int, reverb: ReverbProperties, pan: Vector3) throws(EarshotError) -> Bool {
        guard k >= 0, k < channels.count else { return false }
        let c = channels[k]
        let newReverb = c.reverb != reverb
        guard newReverb || (pan - c.sentPan).length > Self.panStep || !(c.sentPan == c.sentPan) else { return false }
        try EFX.setReverb(effects[k], reverb, pan: pan)
        try EFX.attach(effects[k], to: slots[k])
        let fades = newReverb && (c.reverb.map(ReverbDomain.crossFadeKey) != ReverbDomain.crossFadeKey(reverb))
        channels[k].reverb = reverb
        channels[k].pan = pan
        channels[k].sentPan = pan
        return fades
    }

    /// Deletes the slots and effects (the sources routed to them must be unrouted first).
    func teardown() {
        ReverbSlots.delete(slots: slots, effects: effects)
        slots = []
        effects = []
    }

    /// New slots on the current context (after a device was reopened), with the reverbs the old
    /// ones had. Returns whether any reverb was loaded (a cross-fade starts).
    func rebuild() throws(EarshotError) -> Bool {
        let kept = channels
        try makeObjects()
        channels = [Channel](repeating: Channel(), count: Self.count)
        var fades = false
        for k in kept.indices {
            if let r = kept[k].reverb, try set(channel: k, reverb: r, pan: kept[k].pan) { fades = true }
        }
        return fades
    }
}
