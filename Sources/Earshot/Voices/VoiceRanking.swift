/// The voice pool's standing rule: priority first (0 beats 255), then audibility (louder wins, to
/// within 1/128), then age (the newer voice wins) — packed into one integer per voice so that an
/// update ranks thousands of candidates with integer compares. No OpenAL in it.
enum VoiceRanking {
    /// A candidate of an update: its packed standing key and its slot index.
    struct Entry {
        var key: UInt64
        var index: Int
    }

    /// A voice's standing packed into one integer (larger stands higher): inverted priority in
    /// the top 8 bits, then the audibility's top 16 bits (sign, exponent and 7 mantissa bits of a
    /// non-negative float order like the float, to within 1/128 ≈ 0.07 dB), then the start
    /// sequence (newer is larger) in the low 40 bits.
    @inline(__always)
    static func standing(_ v: borrowing VoiceState) -> UInt64 {
        UInt64(255 - v.priority) << 56
            | UInt64(max(0, v.audibility).bitPattern >> 16) << 40
            | (v.sequence & 0xFF_FFFF_FFFF)
    }

    /// Whether `a` stands above `b`: priority, then audibility, then the newer one.
    @inline(__always)
    static func outranks(_ a: borrowing VoiceState, _ b: borrowing VoiceState) -> Bool {
        standing(a) > standing(b)
    }

    /// Partially orders `entries` so its first `k` entries stand highest (quickselect on the
    /// packed keys: O(n) on average, in place, cache-friendly).
    static func selectBest(_ k: Int, in entries: inout [Entry]) {
        guard k > 0 else { return }
        entries.withUnsafeMutableBufferPointer { a in
            var lo = 0, hi = a.count - 1
            while lo < hi {
                let mid = lo + (hi - lo) / 2
                a.swapAt(mid, hi)
                let pivot = a[hi].key
                var store = lo
                for j in lo..<hi where a[j].key > pivot {
                    a.swapAt(store, j)
                    store += 1
                }
                a.swapAt(store, hi)
                // [lo, store) stand above the pivot at `store`; nothing after it does.
                if store == k || store == k - 1 { return }
                if store < k { lo = store + 1 } else { hi = store - 1 }
            }
        }
    }
}
