#if canImport(Glibc)
import Glibc
#endif
#if DEBUG
import Synchronization
#endif

/// A value behind a pthread mutex: Earshot's one lock primitive (see <doc:Threading>).
///
/// Earshot uses this rather than `Synchronization.Mutex` because ThreadSanitizer understands
/// pthread mutexes: `make tsan` then reports real races only. Not recursive: a nested
/// `withLock` on the same instance traps (the mutex checks errors), so engine code never nests
/// them. Debug builds also record which thread holds the lock, so that code which must run with
/// a lock held (or must not) can say so: ``assertHeld(_:)``, ``assertNotHeld(_:)``.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only reached inside `withLock`, with the mutex held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The value, out of line: a stored `var` of an empty type (`Locked<Void>`) shares its
    /// address with the next stored property, and ThreadSanitizer then took the `inout` access
    /// of one thread and the atomic owner of another for a race. The mutex guards it.
    private let value: UnsafeMutablePointer<Value>
    #if DEBUG
    /// The thread holding the mutex (0: none). Debug builds only; atomic so that any thread may
    /// ask whether it is the one.
    private let owner = Atomic<UInt>(0)
    #endif

    init(_ value: Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        let rc = pthread_mutex_init(mutex, &attributes)
        precondition(rc == 0, "pthread_mutex_init failed: \(rc)")  // trap: cannot run without locks
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    @inline(__always)
    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        let rc = pthread_mutex_lock(mutex)
        precondition(rc == 0, "a lock was taken twice by one thread (EDEADLK): nested AL calls")  // trap: engine bug
        defer { pthread_mutex_unlock(mutex) }
        #if DEBUG
        // (Cleared before the unlock above runs: defers run last-first.)
        owner.store(UInt(pthread_self()), ordering: .relaxed)
        defer { owner.store(0, ordering: .relaxed) }
        #endif
        return try body(&value.pointee)
    }

    /// Debug builds: traps unless the calling thread holds this lock (`what` names the lock and
    /// the rule). Release builds: nothing.
    @inline(__always)
    func assertHeld(_ what: @autoclosure () -> String) {
        #if DEBUG
        precondition(owner.load(ordering: .relaxed) == UInt(pthread_self()), "\(what()): not held by this thread")  // trap: threading contract broken
        #endif
    }

    /// Debug builds: whether the calling thread holds this lock (tests check a threading rule
    /// with it). Release builds: always false.
    var isHeldByCurrentThread: Bool {
        #if DEBUG
        return owner.load(ordering: .relaxed) == UInt(pthread_self())
        #else
        return false
        #endif
    }

    /// Debug builds: traps if the calling thread holds this lock (a lock-order rule: `what`
    /// says which). Release builds: nothing.
    @inline(__always)
    func assertNotHeld(_ what: @autoclosure () -> String) {
        #if DEBUG
        precondition(owner.load(ordering: .relaxed) != UInt(pthread_self()), "\(what()): held by this thread")  // trap: threading contract broken
        #endif
    }
}
