import COpenAL

/// Names of OpenAL and ALC error codes, for messages.
enum ALErrorName {
    static func name(_ code: Int32) -> String {
        switch code {
        case AL_NO_ERROR: return "AL_NO_ERROR"
        case AL_INVALID_NAME: return "AL_INVALID_NAME"
        case AL_INVALID_ENUM: return "AL_INVALID_ENUM"
        case AL_INVALID_VALUE: return "AL_INVALID_VALUE"
        case AL_INVALID_OPERATION: return "AL_INVALID_OPERATION"
        case AL_OUT_OF_MEMORY: return "AL_OUT_OF_MEMORY"
        case ALC_INVALID_DEVICE: return "ALC_INVALID_DEVICE"
        case ALC_INVALID_CONTEXT: return "ALC_INVALID_CONTEXT"
        default: return "0x" + String(code, radix: 16, uppercase: true)
        }
    }
}

/// Error checks for the OpenAL layer, active in release builds too.
///
/// An `AL_OUT_OF_MEMORY` is the environment's fault and throws; any other AL error after a call on
/// the engine's own objects means Earshot passed something wrong, and traps with the operation's
/// name (the engine validates user input before it reaches OpenAL).
///
/// AL errors are per context and every AL call happens under the AL lock (<doc:Threading>), so
/// each check asserts the lock in debug builds: a check without it would read another thread's
/// error.
enum ALCheck {
    @inline(__always)
    private static func requireALLock() { ALGlobal.lock.assertHeld("an AL error check outside the AL lock") }

    /// Throws on any pending AL error.
    static func throwing(_ operation: @autoclosure () -> String) throws(EarshotError) {
        requireALLock()
        let code = alGetError()
        if code != AL_NO_ERROR {
            throw .openAL(operation: operation(), code: code)
        }
    }

    /// Traps on a programmer error; throws only on `AL_OUT_OF_MEMORY`.
    static func strict(_ operation: @autoclosure () -> String) throws(EarshotError) {
        requireALLock()
        let code = alGetError()
        if code == AL_NO_ERROR { return }
        if code == AL_OUT_OF_MEMORY { throw .openAL(operation: operation(), code: code) }
        preconditionFailure("OpenAL \(ALErrorName.name(code)) after \(operation()) on Earshot's own objects")  // trap: engine bug
    }

    /// After a sequence of AL calls on the engine's own objects that cannot fail when Earshot is
    /// right: an error is a bug — a trap in debug builds, a logged error naming `operation` in
    /// release builds — and is consumed either way, so it is never blamed on the next call.
    static func after(_ operation: @autoclosure () -> String) {
        consumeUnexpected { "OpenAL \($0) after \(operation())" }
    }

    /// Reads the pending error; one that is there is a bug: a trap in debug builds, a logged
    /// error (the message `describe` makes of its name) in release builds.
    private static func consumeUnexpected(_ describe: (String) -> String) {
        requireALLock()
        let code = alGetError()
        guard code != AL_NO_ERROR else { return }
        let message = describe(ALErrorName.name(code))
        assertionFailure(message)
        staleLogger.error("\(message)")
    }

    /// Discards a pending error that is expected, for the `reason` given (the cleanup of a
    /// failure already being reported, calls on a device that is gone). The one place an AL
    /// error is dropped on purpose; every use says why.
    static func discard(because reason: StaticString) {
        requireALLock()
        _ = alGetError()
    }

    /// Before a checked sequence: every AL call of the engine is checked, so nothing should be
    /// pending. Something that is means an unchecked call somewhere — a trap in debug builds,
    /// and in release a logged error (then cleared, so that it is not blamed on `operation`).
    static func expectNoPending(before operation: @autoclosure () -> String) {
        consumeUnexpected { "stale OpenAL \($0) before \(operation()): an AL call went unchecked" }
    }

    private static let staleLogger = EarshotLogging.logger("earshot.openal")

    /// Reads and clears the pending ALC error of a device.
    static func alcError(_ device: OpaquePointer?) -> Int32 { alcGetError(device) }
}
