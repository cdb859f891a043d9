// The voice pool, eviction: which virtual voice a play into a full pool ends, found in
// O(log n) from a min-heap of the virtual voices' standing keys instead of a scan of the pool
// (a scan cost 12 µs per play with 5,000 plays in one frame into 4,096 voices).
//
// The heap holds (standing key, slot) entries; the worst voice is on top. It is built lazily by
// the first eviction after anything changed standings (an update recomputes every audibility) and
// then kept by `start` alone: each new virtual voice is pushed, each evicted one popped. Entries go
// stale without being removed — a voice that ended, went real or whose slot another voice took —
// and are dropped when they reach the top: an entry is current only if its slot is virtual and
// its key equals the slot's standing now (the key's low 40 bits are the voice's unique start
// sequence, so a reused slot never matches). Stale entries are bounded: the heap is compacted
// (rebuilt) when it reaches twice the pool's capacity, so it never grows and `start` never
// allocates.
extension VoicePool {
    /// The virtual voice that stands lowest (the eviction victim), or nil when none is virtual.
    /// Same answer as ``worstVirtualByScan()``, in O(log n) amortised.
    func worstVirtual() -> Int? {
        if !evictionHeapValid { rebuildEvictionHeap() }
        while let top = evictionHeap.first {
            let i = top.index
            if slots[i].phase == .virtual {
                let now = VoiceRanking.standing(slots[i])
                if now == top.key { return i }
                if now & Self.sequenceMask == top.key & Self.sequenceMask {
                    // The same voice with another standing: something changed a standing without
                    // clearing the heap. Never evict by a stale order: rebuild and look again.
                    rebuildEvictionHeap()
                    continue
                }
            }
            popEvictionTop()   // ended, real now, or its slot holds another voice
        }
        return nil
    }

    /// Removes `victim` (the current top, just returned by ``worstVirtual()``) from the heap.
    @inline(__always)
    func popWorstVirtual(_ victim: Int) {
        if evictionHeapValid, evictionHeap.first?.index == victim { popEvictionTop() }
    }

    /// A voice that just started virtual in `start`: one more candidate (when the heap is kept).
    @inline(__always)
    func addVirtualCandidate(_ index: Int) {
        guard evictionHeapValid else { return }
        if evictionHeap.count >= evictionHeap.capacity {
            // Full of stale entries: compact instead of growing (no allocation on `start`).
            evictionHeapValid = false
            return
        }
        evictionHeap.append(RankEntry(key: VoiceRanking.standing(slots[index]), index: index))
        siftUp(evictionHeap.count - 1)
    }

    /// Clears the heap: standings changed, or voices became virtual outside `start`.
    @inline(__always)
    func invalidateEvictionHeap() { evictionHeapValid = false }

    /// The start sequence's bits in a standing key (see ``VoiceRanking/standing(_:)``).
    static let sequenceMask: UInt64 = 0xFF_FFFF_FFFF

    private func rebuildEvictionHeap() {
        evictionHeap.removeAll(keepingCapacity: true)
        for i in live where slots[i].phase == .virtual {
            evictionHeap.append(RankEntry(key: VoiceRanking.standing(slots[i]), index: i))
        }
        // Floyd's heapify: O(n).
        var i = evictionHeap.count / 2 - 1
        while i >= 0 {
            siftDown(i)
            i -= 1
        }
        evictionHeapValid = true
    }

    private func popEvictionTop() {
        let last = evictionHeap.removeLast()
        guard !evictionHeap.isEmpty else { return }
        evictionHeap[0] = last
        siftDown(0)
    }

    private func siftUp(_ start: Int) {
        evictionHeap.withUnsafeMutableBufferPointer { h in
            var child = start
            let x = h[child]
            while child > 0 {
                let parent = (child - 1) / 2
                guard x.key < h[parent].key else { break }
                h[child] = h[parent]
                child = parent
            }
            h[child] = x
        }
    }

    private func siftDown(_ start: Int) {
        evictionHeap.withUnsafeMutableBufferPointer { h in
            let n = h.count
            var parent = start
            let x = h[parent]
            while true {
                var child = 2 * parent + 1
                guard child < n else { break }
                if child + 1 < n, h[child + 1].key < h[child].key { child += 1 }
                guard h[child].key < x.key else { break }
                h[parent] = h[child]
                parent = child
            }
            h[parent] = x
        }
    }
}
