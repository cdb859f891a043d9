/// A table of values read and written in place, for the engine's per-frame loops.
///
/// An `Array` stored in a class checks that its buffer is uniquely referenced (copy-on-write) on
/// every element write, and reading an element into a function argument may copy it. The voice
/// pool writes a few fields of thousands of slots every frame, so its tables are this instead:
/// a reference to one allocation, addressed directly (`table[i].field = x` is a single store after
/// a bounds check). It grows by ``append(_:)`` only; never keep an element's address across an
/// append. The storage starts on a 64-byte boundary, so an element whose stride is a multiple
/// of 64 keeps its first 64 bytes in one cache line. Not thread-safe: the pool uses it under the
/// AL lock.
final class SlotTable<Element> {
    private var base: UnsafeMutablePointer<Element>
    private(set) var count: Int
    private var capacity: Int

    init(repeating value: Element, count: Int) {
        capacity = max(count, 1)
        base = Self.allocate(capacity)
        base.initialize(repeating: value, count: count)
        self.count = count
    }

    deinit {
        base.deinitialize(count: count)
        UnsafeMutableRawPointer(base).deallocate()
    }

    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<Element> {
        UnsafeMutableRawPointer
            .allocate(byteCount: MemoryLayout<Element>.stride * capacity,
                      alignment: max(64, MemoryLayout<Element>.alignment))
            .bindMemory(to: Element.self, capacity: capacity)
    }

    subscript(i: Int) -> Element {
        @inline(__always) unsafeAddress {
            precondition(i >= 0 && i < count, "SlotTable index out of range")
            return UnsafePointer(base + i)
        }
        @inline(__always) unsafeMutableAddress {
            precondition(i >= 0 && i < count, "SlotTable index out of range")
            return base + i
        }
    }

    var isEmpty: Bool { count == 0 }

    /// The address of element `i`, for a function that edits many fields of one element. Valid
    /// until the next ``append(_:)``.
    @inline(__always)
    func pointer(_ i: Int) -> UnsafeMutablePointer<Element> {
        precondition(i >= 0 && i < count, "SlotTable index out of range")
        return base + i
    }

    /// Adds an element at the end, moving the storage to a larger allocation when full.
    func append(_ value: Element) {
        if count == capacity {
            let grown = Self.allocate(capacity * 2)
            grown.moveInitialize(from: base, count: count)
            UnsafeMutableRawPointer(base).deallocate()
            base = grown
            capacity *= 2
        }
        (base + count).initialize(to: value)
        count += 1
    }

    /// Calls `body` with the elements as a buffer (valid only during the call).
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// A read-only view of the table: what its owner hands to code that may read its elements
    /// but must change them through the owner's methods.
    struct ReadOnly {
        fileprivate let table: SlotTable

        subscript(i: Int) -> Element {
            @inline(__always) unsafeAddress { UnsafePointer(table.pointer(i)) }
        }

        var count: Int { table.count }
    }

    var readOnly: ReadOnly { ReadOnly(table: self) }
}
