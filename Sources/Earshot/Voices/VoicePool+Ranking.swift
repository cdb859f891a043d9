// The voice pool, ranking: who stands higher, which virtual voice a full pool evicts first, and
// the order waiting winners take free sources in. The standing rule itself is VoiceRanking
// (VoiceRanking.swift); how loud a voice is (`audibility`) is with the start (VoicePool+Start.swift).
extension VoicePool {
    /// Whether `a` stands above `b`: priority, then audibility, then the newer one (the rule and
    /// its packed key are in VoiceRanking.swift).
    @inline(__always)
    func outranks(_ a: borrowing VoiceState, _ b: borrowing VoiceState) -> Bool {
        VoiceRanking.outranks(a, b)
    }

    /// The virtual voice a full pool evicts first: the one that stands lowest by the same rule
    /// (priority, audibility, age). Scans every live voice: O(pool); `start` uses the heap of
    /// VoicePool+Eviction.swift instead, and tests check the two agree.
    func worstVirtualByScan() -> Int? {
        var worst: Int?
        for i in live where slots[i].phase == .virtual {
            if let w = worst {
                if outranks(slots[w], slots[i]) { worst = i }
            } else {
                worst = i
            }
        }
        return worst
    }

    func sortWaiting() {
        waiting.withUnsafeMutableBufferPointer { a in
            slots.withUnsafeBufferPointer { s in
                // Insertion sort: the list is short (it only holds voices that just won a source).
                for i in 1..<a.count {
                    let x = a[i]
                    var j = i - 1
                    while j >= 0, outranks(s[x], s[a[j]]) {
                        a[j + 1] = a[j]
                        j -= 1
                    }
                    a[j + 1] = x
                }
            }
        }
    }
}
