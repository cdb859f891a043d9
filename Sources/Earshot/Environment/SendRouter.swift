import COpenAL

/// Routes the voice pool's sources to the reverb zones' auxiliary slots: a positioned voice's
/// send *i* goes to slot *i*; a panned voice (UI, music-like one-shots) sends nothing. Keeps per
/// source what it routed, so a source that already has the right routing costs nothing at start.
///
/// Touched only under the AL lock (like the pool that calls it).
final class SendRouter {
    /// The slots, send by send (empty: nothing routed).
    private(set) var slots: [ALuint] = []
    /// Bumped whenever `slots` changes; a source routed under another epoch is routed again.
    private var epoch: UInt32 = 1
    /// Per source name: the epoch its sends were routed under (0: routed to nothing).
    private var routed: [UInt32] = []

    /// Routes (or unroutes) `source` for a voice that is `positioned` or not.
    @inline(__always)
    func prepare(source: ALuint, positioned: Bool) {
        let want: UInt32 = positioned && !slots.isEmpty ? epoch : 0
        let i = Int(source)
        if i >= routed.count { routed += [UInt32](repeating: 0, count: i + 1 - routed.count) }
        guard routed[i] != want else { return }
        for send in slots.indices {
            alSource3i(source, AL_AUXILIARY_SEND_FILTER, want == 0 ? 0 : ALint(slots[send]), ALint(send), 0)
        }
        routed[i] = want
    }

    /// New slots (first zones, or slots rebuilt after a device loss); `playing` lists the sources
    /// of voices playing now and whether each is positioned, routed at once.
    func setSlots(_ slots: [ALuint], playing: [(source: ALuint, positioned: Bool)]) {
        self.slots = slots
        epoch &+= 1
        if epoch == 0 { epoch = 1 }
        for p in playing { prepare(source: p.source, positioned: p.positioned) }
    }

    /// The sources were replaced (a new context): nothing is routed on the new ones.
    func forgetSources() {
        routed.removeAll(keepingCapacity: true)
    }
}
