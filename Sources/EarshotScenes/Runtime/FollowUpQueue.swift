/// The follow-ups placed on a scene's timeline as their voices' ends and markers become known: a
/// binary heap by time, then by the order they were placed.
///
/// Placing one costs O(log n) whatever is already placed: an insertion into the timeline's array
/// after a linear scan would make 40,000 `after:` events on one play take 25 s, and a clip with a
/// cue on every frame, looping, take hours.
///
/// ```swift
/// var queue = FollowUpQueue()
/// queue.place(2, at: 1.5)
/// queue.place(7, at: 0.5)
/// queue.popFirst()?.index   // 7
/// ```
struct FollowUpQueue {
    struct Entry {
        var time: Double
        /// The order it was placed in: of two follow-ups at one time, the first placed runs first.
        var order: Int
        /// The index into `scene.followUps`.
        var index: Int
    }

    private var heap: [Entry] = []
    private var placed = 0

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }
    /// The time of the first follow-up due, or nil.
    var firstTime: Double? { heap.first?.time }

    private static func before(_ a: Entry, _ b: Entry) -> Bool {
        a.time < b.time || (a.time == b.time && a.order < b.order)
    }

    /// Places follow-up `index` at scene time `time`.
    mutating func place(_ index: Int, at time: Double) {
        heap.append(Entry(time: time, order: placed, index: index))
        placed += 1
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard Self.before(heap[i], heap[parent]) else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    /// Takes the first follow-up due.
    mutating func popFirst() -> Entry? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        siftDown(0)
        return first
    }

    /// Takes every follow-up `remove` says to: O(n), then the heap is rebuilt.
    mutating func removeAll(where remove: (Entry) -> Bool) {
        let before = heap.count
        heap.removeAll(where: remove)
        guard heap.count != before else { return }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count, Self.before(heap[l], heap[m]) { m = l }
            if r < heap.count, Self.before(heap[r], heap[m]) { m = r }
            guard m != i else { return }
            heap.swapAt(i, m)
            i = m
        }
    }
}
