import Foundation

/// A value behind an `NSLock`: this target's lock (it sits below Earshot, whose `Locked` it
/// cannot use). On Linux an `NSLock` is a pthread mutex, which ThreadSanitizer understands, as it
/// does Earshot's own. Every lock of this target is a leaf: no other lock is taken inside one,
/// and no caller's closure is called with one held.
final class Guarded<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only reached inside `withLock`, with `lock` held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
