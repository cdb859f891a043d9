/// Ended voices not yet delivered as events: a bounded ring that keeps the newest `capacity`
/// between drains (the oldest are dropped when full). Sized at creation; recording and draining
/// allocate nothing.
struct EndedRing {
    /// One ended voice: its handle, why, and its sound (a `SoundTable.Key`; 0: played as a clip).
    struct Entry {
        var id: VoiceID
        var reason: VoiceEndReason
        var sound: UInt32 = 0
        /// When it ended, on the engine clock (seconds).
        var time: Double = 0
    }
    private var entries: [Entry]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) {
        precondition(capacity > 0, "EndedRing needs room for one entry")
        entries = [Entry](repeating: Entry(id: VoiceID(index: 0, generation: 0), reason: .finished), count: capacity)
    }

    var capacity: Int { entries.count }
    var isEmpty: Bool { count == 0 }

    /// Records an end, dropping the oldest one when the ring is full.
    mutating func record(_ id: VoiceID, _ reason: VoiceEndReason, sound: UInt32 = 0, time: Double = 0) {
        let pos = (head + count) % entries.count
        entries[pos] = Entry(id: id, reason: reason, sound: sound, time: time)
        if count < entries.count { count += 1 } else { head = (head + 1) % entries.count }
    }

    /// Takes the oldest recorded end out of the ring; nil when it is empty.
    mutating func popOldest() -> Entry? {
        guard count > 0 else { return nil }
        let entry = entries[head]
        head = (head + 1) % entries.count
        count -= 1
        return entry
    }
}
