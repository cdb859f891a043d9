/// Where each voice is on its clip's timeline, and which clip markers it has yet to pass: the
/// voice pool's side table for ``Voice/time``, ``Voice/startTime`` and the voices' marker events
/// (VoicePool+Timeline.swift).
///
/// A voice's playhead wraps into its clip when it loops (`VoiceState.playhead` while virtual,
/// `realOffset` while real: OpenAL's offset of a looping source wraps too). The frames wrapped
/// away are added to ``wrapped`` wherever the pool wraps, so that the *timeline position* —
/// `wrapped + playhead` — counts every pass: a 1 s loop heard for 2.5 s is 2.5 s along, not
/// 0.5. Kept apart from `VoiceState` (whose hot line is full) and touched only when a loop wraps,
/// a voice starts or ends, and for the few voices whose clips have markers, so voices without
/// markers cost nothing per frame.
///
/// Every field is indexed by slot and used under the AL lock, like the pool (the pool owns it).
/// The columns written at every play are `SlotTable`s (a store, no copy-on-write check).
final class VoiceTimeline {
    /// Clip frames wrapped away from the slot's playhead by its loops (0 at play).
    let wrapped: SlotTable<Double>
    /// The audio time (``AudioEngine/audioTime``) the slot's first frame is, or was to be, heard.
    let startAudio: SlotTable<Double>
    /// The markers of a marked slot's clip (empty for the others), sorted by frame.
    @exclusivity(unchecked) var marks: [[Marker]]
    /// Timeline position (frames, loops counted) from which a marked slot's markers are still
    /// to be reported: everything before it was.
    @exclusivity(unchecked) var markFrom: [Double]
    /// Slots whose clips have markers, unordered, and each slot's index in that list (−1).
    @exclusivity(unchecked) private(set) var marked: [Int]
    private let markedAt: SlotTable<Int32>

    init(capacity: Int) {
        wrapped = SlotTable(repeating: 0, count: capacity)
        startAudio = SlotTable(repeating: 0, count: capacity)
        marks = [[Marker]](repeating: [], count: capacity)
        markFrom = [Double](repeating: 0, count: capacity)
        marked = []
        marked.reserveCapacity(capacity)
        markedAt = SlotTable(repeating: -1, count: capacity)
    }

    /// The voice in `slot` plays a clip with `markers`, from clip frame `startFrame` (its markers
    /// from there on are reported; those before an offset are not).
    func mark(_ slot: Int, markers: [Marker], from startFrame: Double) {
        guard markedAt[slot] < 0 else { return }
        marks[slot] = markers
        markFrom[slot] = startFrame
        markedAt[slot] = Int32(marked.count)
        marked.append(slot)
    }

    /// The voice in `slot` ended: it has no markers left to report.
    @inline(__always)
    func end(_ slot: Int) {
        let at = Int(markedAt[slot])
        guard at >= 0 else { return }
        let last = marked.removeLast()
        if last != slot {
            marked[at] = last
            markedAt[last] = Int32(at)
        }
        markedAt[slot] = -1
        marks[slot] = []
    }

    /// Hands `body` the marker positions on a voice's timeline in `from ..< to` (frames, loops
    /// counted), in order, for a clip of `clipFrames` frames: marker `m` lies at
    /// `m.frame + k · clipFrames` in pass `k` (a loop's, or a loop count's). At most `limit` are
    /// handed over; then it returns where the next scan must resume (nil: the whole span was seen).
    static func positions(of markers: [Marker], clipFrames: Int, from: Double, to: Double, limit: Int,
                          _ body: (Double, String) -> Void) -> Double? {
        guard clipFrames > 0, to > from, !markers.isEmpty else { return nil }
        let length = Double(clipFrames)
        var pass = max(0, (from / length).rounded(.down))
        var count = 0
        while pass * length < to {
            let base = pass * length
            for m in markers {
                let p = base + Double(m.frame)
                if p >= to { return nil }
                guard p >= from else { continue }
                if count == limit { return p }
                body(p, m.name)
                count += 1
            }
            pass += 1
        }
        return nil
    }
}
