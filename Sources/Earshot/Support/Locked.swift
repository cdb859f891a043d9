#if canImport(Glibc)
import Glibc
#endif

/// A value behind a pthread mutex.
///
/// Earshot uses this rather than `Synchronization.Mutex` because ThreadSanitizer understands
/// pthread mutexes: `make tsan` then reports real races only. Not recursive: a nested
/// `withLock` on the same instance deadlocks, so engine code never nests them.
final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
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
    }

    @inline(__always)
    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        let rc = pthread_mutex_lock(mutex)
        precondition(rc == 0, "a lock was taken twice by one thread (EDEADLK): nested AL calls")  // trap: engine bug
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
