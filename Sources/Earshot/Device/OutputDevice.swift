import COpenAL
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Which output a device writes to.
///
/// `.systemDefault` and `.device(name)` play in real time on the machine's sound system;
/// `.loopback` mixes only when the caller renders (``AudioEngine/render(frames:)``), in the
/// calling thread, deterministically and faster than real time.
public enum Output: Sendable, Equatable {
    /// The system's default playback device (PulseAudio's default sink, ALSA's default, …).
    case systemDefault
    /// A playback device by the name ``OutputDevice/playbackDeviceNames()`` lists.
    case device(String)
    /// A headless device that mixes when rendered (`ALC_SOFT_loopback`).
    case loopback(sampleRate: Int, channels: ChannelLayout = .stereo)
}

/// The channel layout of a loopback device's output.
public enum ChannelLayout: Int, Sendable, Equatable, CaseIterable {
    case mono = 1
    case stereo = 2
    case quad = 4

    var alcValue: Int32 {
        switch self {
        case .mono: return ALC_MONO_SOFT
        case .stereo: return ALC_STEREO_SOFT
        case .quad: return ALC_QUAD_SOFT
        }
    }
}

/// An open OpenAL device (`ALCdevice`), real or loopback.
///
/// The device is closed by ``close()`` (idempotent); a device must outlive its contexts. Most code
/// never touches it directly: ``AudioEngine`` owns one.
///
/// ```swift
/// let device = try OutputDevice.open(.loopback(sampleRate: 48_000))
/// print(device.name, device.isLoopback)
/// device.close()
/// ```
public final class OutputDevice: @unchecked Sendable {
    // @unchecked Sendable: `closed` changes only in `closeAsOwner()`, which an engine calls under the
    // AL lock (a game's `close()` on an engine's device does nothing); a device used alone belongs
    // to the one thread that drives it.
    let handle: OpaquePointer
    /// The name OpenAL reports for the device.
    public let name: String
    /// Whether this device mixes only when rendered.
    public let isLoopback: Bool
    /// The loopback output's sample rate and layout (nil for a real device).
    public let loopbackFormat: (sampleRate: Int, channels: ChannelLayout)?
    /// The device's ALC extensions, read once at open.
    public let extensions: Set<String>
    private let canReportDisconnect: Bool
    /// `ALC_SOFT_device_clock`: the device reports its mixing clock and output latency.
    private let reportsClock: Bool
    private var closed = false

    private init(handle: OpaquePointer, isLoopback: Bool, loopbackFormat: (Int, ChannelLayout)?) {
        Self.openCount.add(1, ordering: .relaxed)
        self.handle = handle
        self.isLoopback = isLoopback
        self.loopbackFormat = loopbackFormat.map { (sampleRate: $0.0, channels: $0.1) }
        self.name = Self.string(handle, ALC_ALL_DEVICES_SPECIFIER) ?? Self.string(handle, ALC_DEVICE_SPECIFIER) ?? "?"
        self.extensions = Set((Self.string(handle, ALC_EXTENSIONS) ?? "").split(separator: " ").map(String.init))
        canReportDisconnect = !isLoopback && extensions.contains("ALC_EXT_disconnect")
        reportsClock = extensions.contains("ALC_SOFT_device_clock")
    }

    /// Opens the output. Throws ``EarshotError/noOutputDevice(detail:)`` when the machine has none,
    /// ``EarshotError/deviceNotFound(name:)`` for an unknown name.
    public static func open(_ output: Output) throws(EarshotError) -> OutputDevice {
        try open(output, followDefault: true)
    }

    /// Opens the output; `followDefault` false pins a real device to the output it opened on
    /// (decided by the process's first open: see `OpenALEnvironment`).
    static func open(_ output: Output, followDefault: Bool) throws(EarshotError) -> OutputDevice {
        var allowMoves = followDefault
        if case .device = output { allowMoves = false }
        return try OpenALEnvironment.prepare(allowMoves: allowMoves) { () throws(EarshotError) -> OutputDevice in
            try openQuietly(output)
        }
    }

    private static func openQuietly(_ output: Output) throws(EarshotError) -> OutputDevice {
        switch output {
        case .systemDefault:
            guard let dev = alcOpenDevice(nil) else {
                throw .noOutputDevice(detail: "")
            }
            return OutputDevice(handle: dev, isLoopback: false, loopbackFormat: nil)
        case .device(let name):
            guard let dev = alcOpenDevice(name) else {
                if playbackDeviceNames().contains(name) {
                    throw .noOutputDevice(detail: "the device \"\(name)\" is listed but did not open")
                }
                throw .deviceNotFound(name: name)
            }
            return OutputDevice(handle: dev, isLoopback: false, loopbackFormat: nil)
        case .loopback(let rate, let channels):
            guard rate >= 8_000, rate <= 192_000 else {
                throw .invalidArgument("loopback sample rate \(rate) Hz is outside 8000…192000")
            }
            guard alcIsExtensionPresent(nil, "ALC_SOFT_loopback") != 0 else {
                throw .extensionMissing("ALC_SOFT_loopback")
            }
            guard let dev = alcLoopbackOpenDeviceSOFT(nil) else {
                throw .contextCreationFailed(detail: "alcLoopbackOpenDeviceSOFT failed")
            }
            let ok = alcIsRenderFormatSupportedSOFT(dev, ALCsizei(rate), channels.alcValue, ALC_FLOAT_SOFT)
            guard ok != 0 else {
                alcCloseDevice(dev)
                throw .invalidArgument("loopback format \(rate) Hz \(channels) float is not supported")
            }
            return OutputDevice(handle: dev, isLoopback: true, loopbackFormat: (rate, channels))
        }
    }

    /// Closes the device. Safe to call more than once.
    ///
    /// A device that belongs to an ``AudioEngine`` (``AudioEngine/device``) is closed by the
    /// engine's ``AudioEngine/shutdown()`` only: `close()` on it does nothing but log a warning,
    /// so a game cannot pull the device from under the engine.
    public func close() {
        guard !engineOwned.load(ordering: .acquiring) else {
            EarshotLogging.logger("earshot.device").warning("close() on the device of an engine ignored: call engine.shutdown()")
            return
        }
        closeAsOwner()
    }

    /// Devices of the process opened through Earshot and not closed yet (tests: nothing leaks).
    static let openCount = Atomic<Int>(0)

    /// Set once an engine plays on this device (before the engine is shared).
    private let engineOwned = Atomic<Bool>(false)

    /// The engine takes the device: from now on only the engine closes it.
    func adoptByEngine() { engineOwned.store(true, ordering: .releasing) }

    /// Closes the device whoever owns it: the engine's shutdown and device rebuild, under the AL
    /// lock (which is what guards `closed` for an engine's device; a device used alone belongs to
    /// the one thread that uses it).
    func closeAsOwner() {
        guard !closed else { return }
        closed = true
        alcCloseDevice(handle)
        Self.openCount.subtract(1, ordering: .relaxed)
    }

    /// Mixes a loopback device's next frames into `buffer` (interleaved floats, whole frames),
    /// for code that drives OpenAL itself (the raw-OpenAL baseline of `earshot stress`).
    /// An ``AudioEngine`` renders with ``AudioEngine/render(into:)`` instead.
    public func renderLoopback(into buffer: UnsafeMutableBufferPointer<Float>) {
        guard let format = loopbackFormat else { preconditionFailure("renderLoopback on a device that is not a loopback device") }  // trap: misuse
        precondition(!closed, "renderLoopback on a closed device")
        let frames = buffer.count / format.channels.rawValue
        if frames > 0 { alcRenderSamplesSOFT(handle, buffer.baseAddress, ALCsizei(frames)) }
    }

    /// Whether the device is still connected (`ALC_CONNECTED` of `ALC_EXT_disconnect`).
    public var isConnected: Bool {
        guard canReportDisconnect, !closed else { return true }
        var value: ALCint = 1
        alcGetIntegerv(handle, ALC_CONNECTED, 1, &value)
        return value != 0
    }

    /// Reads an integer ALC property of the device.
    func integer(_ param: Int32) -> Int {
        var value: ALCint = 0
        alcGetIntegerv(handle, param, 1, &value)
        return Int(value)
    }

    /// Where the device's output is now, in seconds of its own clock: the time of the sample
    /// leaving it (`ALC_DEVICE_CLOCK_LATENCY_SOFT`: the mixer's clock minus the output latency,
    /// read together), or nil when the device does not report its clock (`ALC_SOFT_device_clock`)
    /// or the read failed (a disconnected device).
    func heardClock() -> Double? {
        readClock(ALC_DEVICE_CLOCK_LATENCY_SOFT).map { Double($0.0 - $0.1) / 1e9 }
    }

    /// The device's output latency in seconds (`ALC_DEVICE_CLOCK_LATENCY_SOFT`'s second value:
    /// how long a mixed sample takes to leave it), or nil as for ``heardClock()`` or when the
    /// value is implausible (negative, 10 s or more).
    func outputLatency() -> Double? {
        guard let (_, latency) = readClock(ALC_DEVICE_CLOCK_LATENCY_SOFT), latency >= 0, latency < 10_000_000_000 else { return nil }
        return Double(latency) / 1e9
    }

    /// The device's mixing clock in seconds (`ALC_DEVICE_CLOCK_SOFT`: the time of the next sample
    /// OpenAL mixes, which is heard an output latency later), or nil as for ``heardClock()``.
    func mixClock() -> Double? {
        readClock(ALC_DEVICE_CLOCK_SOFT).map { Double($0.0) / 1e9 }
    }

    /// One or two 64-bit values of `param` (the clock; with the latency for
    /// `ALC_DEVICE_CLOCK_LATENCY_SOFT`, read together); nil when the device reports no clock or
    /// the read failed — a failed read is "no clock" and the caller falls back.
    private func readClock(_ param: ALCenum) -> (Int64, Int64)? {
        guard reportsClock else { return nil }
        var values: (ALCint64SOFT, ALCint64SOFT) = (0, 0)
        let count: ALCsizei = param == ALC_DEVICE_CLOCK_LATENCY_SOFT ? 2 : 1
        withUnsafeMutableBytes(of: &values) { raw in
            raw.withMemoryRebound(to: ALCint64SOFT.self) { alcGetInteger64vSOFT(handle, param, count, $0.baseAddress) }
        }
        guard ALCheck.alcError(handle) == ALC_NO_ERROR else { return nil }
        return (Int64(values.0), Int64(values.1))
    }

    // MARK: Enumeration

    /// The names of every playback device OpenAL can open.
    public static func playbackDeviceNames() -> [String] {
        OpenALEnvironment.prepare { () -> [String] in
            let param = alcIsExtensionPresent(nil, "ALC_ENUMERATE_ALL_EXT") != 0 ? ALC_ALL_DEVICES_SPECIFIER : ALC_DEVICE_SPECIFIER
            guard let list = alcGetString(nil, param) else { return [] }
            return splitDoubleNulList(list)
        }
    }

    /// The name of the default playback device, if there is one.
    public static func defaultPlaybackDeviceName() -> String? {
        OpenALEnvironment.prepare { () -> String? in
            let param = alcIsExtensionPresent(nil, "ALC_ENUMERATE_ALL_EXT") != 0 ? ALC_DEFAULT_ALL_DEVICES_SPECIFIER : ALC_DEFAULT_DEVICE_SPECIFIER
            return string(nil, param).flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// ALC extensions available without a device.
    public static func globalExtensions() -> [String] {
        // alcGetString(NULL, ALC_EXTENSIONS) does not read OpenAL's configuration: no preparing.
        (string(nil, ALC_EXTENSIONS) ?? "").split(separator: " ").map(String.init)
    }

    static func string(_ device: OpaquePointer?, _ param: Int32) -> String? {
        guard let p = alcGetString(device, param) else { return nil }
        return String(cString: p)
    }

    static func splitDoubleNulList(_ list: UnsafePointer<ALCchar>) -> [String] {
        var names: [String] = []
        var p = list
        while p.pointee != 0 {
            names.append(String(cString: p))
            p = p.advanced(by: strlen(p) + 1)
        }
        return names
    }
}
