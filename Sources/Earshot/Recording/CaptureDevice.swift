import COpenAL

/// An OpenAL capture device (`alcCaptureOpenDevice`): a microphone, a line input, or on
/// PulseAudio any source — a null sink's monitor included.
///
/// Captures 16-bit mono or stereo at the rate asked for, into OpenAL's own ring of
/// `bufferFrames` frames, which the owner drains with ``read(into:frames:)`` before it fills.
/// Not thread-safe: ``Recorder`` owns one and touches it under its lock. ALC capture calls need
/// no context, so the engine's AL lock is not involved.
///
/// ```swift
/// print(CaptureDevice.inputDeviceNames(), CaptureDevice.defaultInputDeviceName() ?? "none")
/// ```
public final class CaptureDevice {
    /// The device's name, as OpenAL lists it.
    public let name: String
    public let sampleRate: Int
    public let channels: Int
    private var handle: OpaquePointer?
    private let hasDisconnect: Bool

    /// The input devices OpenAL can capture from.
    ///
    /// Like every OpenAL call Earshot makes, it runs with the process prepared first
    /// (OpenALEnvironment): OpenAL Soft's log level 0 and libasound's error lines routed to the
    /// `earshot.alsa` debug log, so that no input prints "ALSA lib …" lines on stderr.
    public static func inputDeviceNames() -> [String] {
        OpenALEnvironment.prepare { () -> [String] in
            guard let list = alcGetString(nil, ALC_CAPTURE_DEVICE_SPECIFIER) else { return [] }
            return OutputDevice.splitDoubleNulList(list)
        }
    }

    /// The default input device's name, or nil when there is none.
    public static func defaultInputDeviceName() -> String? {
        OpenALEnvironment.prepare { () -> String? in OutputDevice.string(nil, ALC_CAPTURE_DEFAULT_DEVICE_SPECIFIER) }
    }

    /// Opens `name` (nil: the default input) for `channels` (1 or 2) at `sampleRate`. Throws
    /// ``EarshotError/noInputDevice(detail:)`` for an unknown name or when no input opens.
    public init(name: String?, sampleRate: Int, channels: Int, bufferFrames: Int) throws(EarshotError) {
        precondition(channels == 1 || channels == 2, "CaptureDevice: 1 or 2 channels")
        precondition(sampleRate > 0 && bufferFrames > 0, "CaptureDevice: a rate and a buffer")
        if let name, !Self.inputDeviceNames().contains(name) {
            throw .noInputDevice(detail: "none is named \"\(name)\"")
        }
        let format = channels == 1 ? AL_FORMAT_MONO16 : AL_FORMAT_STEREO16
        let opened = OpenALEnvironment.prepare { () -> OpaquePointer? in
            alcCaptureOpenDevice(name, ALCuint(sampleRate), ALCenum(format), ALCsizei(bufferFrames))
        }
        guard let device = opened else {
            throw .noInputDevice(detail: name.map { "\"\($0)\" did not open" } ?? "")
        }
        handle = device
        self.name = OutputDevice.string(device, ALC_CAPTURE_DEVICE_SPECIFIER) ?? name ?? "?"
        self.sampleRate = sampleRate
        self.channels = channels
        hasDisconnect = alcIsExtensionPresent(device, "ALC_EXT_disconnect") != 0
    }

    deinit { close() }

    public func start() { if let handle { alcCaptureStart(handle) } }
    public func stop() { if let handle { alcCaptureStop(handle) } }

    /// Frames captured and not yet read.
    public var availableFrames: Int {
        guard let handle else { return 0 }
        var n: ALCint = 0
        alcGetIntegerv(handle, ALCenum(ALC_CAPTURE_SAMPLES), 1, &n)
        return Int(max(0, n))
    }

    /// Whether the device is still there (`ALC_CONNECTED`; true without `ALC_EXT_disconnect`).
    public var isConnected: Bool {
        guard let handle else { return false }
        guard hasDisconnect else { return true }
        var connected: ALCint = 1
        alcGetIntegerv(handle, ALCenum(ALC_CONNECTED), 1, &connected)
        return connected != 0
    }

    /// Reads `frames` captured frames (at most ``availableFrames``) into `buffer`.
    public func read(into buffer: UnsafeMutablePointer<Int16>, frames: Int) {
        guard let handle, frames > 0 else { return }
        precondition(frames <= availableFrames, "CaptureDevice.read: more frames than captured")
        alcCaptureSamples(handle, buffer, ALCsizei(frames))
    }

    /// Stops and closes the device (idempotent).
    public func close() {
        guard let handle else { return }
        alcCaptureStop(handle)
        alcCaptureCloseDevice(handle)
        self.handle = nil
    }
}
