import Foundation
import Synchronization

/// Records from an input device into a file, with meters, like the seeds' AVAudioRecorder.
///
/// A recorder owns a ``CaptureDevice`` and an ``AudioFileWriter``. ``record()`` starts (or
/// resumes) capturing; a background thread drains OpenAL's capture ring every few milliseconds,
/// writes the file, keeps the meters and hands each buffer to ``buffers``. ``pause()`` keeps the
/// file open and the position; ``stop()`` finishes the file. ``currentTime`` is the recorded
/// duration. If the input device goes away (its sound server stopped, a USB microphone pulled
/// out), the recorder stops, finishes the file with everything recorded until then — a valid
/// file — and reports ``Event/deviceLost(frames:)``.
///
/// Every size is bounded: ``Configuration/maxSeconds`` (default one hour, at most 24 h) ends a
/// recording, and ``record()`` refuses to start when the file's folder cannot hold that much.
/// The file's container comes from its extension (see ``AudioFileWriter``: WAV, CAF, FLAC, Ogg …)
/// and appears at its path when the recording finishes.
///
/// ```swift
/// let recorder = try Recorder(configuration: .init(channels: 1, path: "out/shout.wav"))
/// try recorder.record(forDuration: 2)
/// while recorder.isRecording { usleep(10_000) }
/// print(recorder.currentTime, recorder.meters().peakPower)
/// ```
public final class Recorder: Sendable {
    /// What to record, from where, into what.
    public struct Configuration: Sendable, Equatable {
        /// The input device by name (``CaptureDevice/inputDeviceNames()``), or nil for the default.
        public var device: String?
        /// Frames per second to capture (8,000…192,000).
        public var sampleRate: Int
        /// 1 or 2.
        public var channels: Int
        /// The file to write (its folder must exist; an existing file is replaced when recording
        /// starts).
        public var path: String
        /// The sample type of the file.
        public var format: AudioFileWriter.Format
        /// The longest recording, in seconds (0 < maxSeconds ≤ 86,400): the recorder stops there.
        public var maxSeconds: Double

        public init(device: String? = nil, sampleRate: Int = 48_000, channels: Int = 1, path: String,
                    format: AudioFileWriter.Format = .s16, maxSeconds: Double = 3_600) {
            self.device = device
            self.sampleRate = sampleRate
            self.channels = channels
            self.path = path
            self.format = format
            self.maxSeconds = maxSeconds
        }
    }

    /// Where a recording stands.
    public enum State: Sendable, Equatable {
        case ready, recording, paused, finished
        /// Ended by a fault (the device went away, the disk filled); the file holds what was
        /// recorded before it.
        case failed(EarshotError)
    }

    /// What a recorder reports on ``events``.
    public enum Event: Sendable, Equatable {
        case started, paused
        /// The recording ended (stopped, or its duration reached) with this many frames.
        case finished(frames: Int)
        /// The input device went away; the file was finished with `frames` frames.
        case deviceLost(frames: Int)
        /// Writing failed; the file was closed with what was written.
        case failed(EarshotError)
    }

    /// The longest recording any configuration may ask for: 24 hours.
    public static let maxSecondsLimit = 86_400.0

    public let configuration: Configuration

    private struct Core {
        var state: State = .ready
        var device: CaptureDevice?
        var writer: AudioFileWriter?
        var frames = 0
        var stopAtFrames: Int
        var scratch: [Int16] = []
        var floats: [Float] = []
        var thread: Thread?
        var continuations: [UUID: AsyncStream<[Float]>.Continuation] = [:]
        var eventContinuations: [UUID: AsyncStream<Event>.Continuation] = [:]
    }
    // Everything mutable lives in `core` behind its lock; the meter has its own lock.
    private let core: Locked<Core>
    private let meter = OutputMeter()
    private let running = Atomic<Bool>(false)

    /// Opens the input device. Throws ``EarshotError/invalidArgument(_:)`` for values out of
    /// range or a file extension libsndfile does not write, ``EarshotError/noInputDevice(detail:)``.
    public init(configuration: Configuration) throws(EarshotError) {
        let c = configuration
        guard (8_000...192_000).contains(c.sampleRate) else {
            throw .invalidArgument("sampleRate \(c.sampleRate) is outside 8000…192000")
        }
        guard c.channels == 1 || c.channels == 2 else {
            throw .invalidArgument("channels \(c.channels): recordings are mono or stereo")
        }
        guard c.maxSeconds.isFinite, c.maxSeconds > 0, c.maxSeconds <= Self.maxSecondsLimit else {
            throw .invalidArgument("maxSeconds \(c.maxSeconds) is outside 0…\(Int(Self.maxSecondsLimit))")
        }
        _ = try AudioFileWriter.Container.forPath(c.path)   // an extension libsndfile writes, before the device opens
        self.configuration = c
        meter.configure(sampleRate: c.sampleRate, channels: c.channels)
        meter.enabled.store(true, ordering: .relaxed)
        // OpenAL's ring: 100 ms, drained every 5 ms. (OpenAL Soft's PulseAudio capture asks the
        // server for fragments of the ring's size: a larger ring delays every delivery.)
        let device = try CaptureDevice(
            name: c.device, sampleRate: c.sampleRate, channels: c.channels, bufferFrames: c.sampleRate / 10)
        core = Locked(Core(device: device, stopAtFrames: Int(c.maxSeconds * Double(c.sampleRate))))
    }

    deinit {
        _ = try? stop()
    }

    /// The recorder's state.
    public var state: State { core.withLock { $0.state } }
    /// Whether it is capturing now.
    public var isRecording: Bool { state == .recording }
    /// Seconds recorded so far.
    public var currentTime: Double { Double(core.withLock { $0.frames }) / Double(configuration.sampleRate) }
    /// The name of the device recording.
    public var deviceName: String { core.withLock { $0.device?.name ?? configuration.device ?? "" } }

    /// Average and peak level (dBFS) per channel over the last 50 ms captured.
    public func meters() -> MeterReading { meter.reading() }

    /// Starts recording, or resumes after ``pause()``. Throws ``EarshotError/writeFailed(path:reason:)``
    /// when the file cannot be created and ``EarshotError/insufficientDiskSpace(path:needed:available:)``
    /// when its folder cannot hold the longest recording; does nothing once finished.
    public func record() throws(EarshotError) {
        try core.withLock { (c) throws(EarshotError) in
            switch c.state {
            case .recording, .finished, .failed: return
            case .ready:
                c.writer = try AudioFileWriter(path: configuration.path, sampleRate: configuration.sampleRate,
                                               channels: configuration.channels, format: configuration.format,
                                               expectedFrames: c.stopAtFrames)
            case .paused: break
            }
            c.device?.start()
            c.state = .recording
            Self.post(.started, to: c)
            if c.thread == nil { startThread(&c) }
        }
    }

    /// Records for `seconds` more (bounded by ``Configuration/maxSeconds``), then finishes.
    public func record(forDuration seconds: Double) throws(EarshotError) {
        guard seconds.isFinite, seconds > 0 else {
            throw .invalidArgument("record(forDuration:) \(seconds) s must be finite and > 0")
        }
        core.withLock { c in
            let more = Int(min(seconds, configuration.maxSeconds) * Double(configuration.sampleRate))
            c.stopAtFrames = min(c.frames + more, Int(configuration.maxSeconds * Double(configuration.sampleRate)))
        }
        try record()
    }

    /// Pauses: capture stops, the file stays open, ``currentTime`` holds.
    public func pause() {
        core.withLock { c in
            guard c.state == .recording else { return }
            c.device?.stop()
            Self.drain(&c, meter: meter)
            c.state = .paused
            Self.post(.paused, to: c)
        }
    }

    /// Stops and finishes the file (idempotent). Throws when closing the file fails.
    public func stop() throws(EarshotError) {
        let thread = core.withLock { c -> Thread? in
            if c.state == .recording { Self.drain(&c, meter: meter) }
            return c.thread
        }
        running.store(false, ordering: .relaxed)
        _ = thread
        try core.withLock { (c) throws(EarshotError) in
            try Self.finish(&c, event: .finished(frames: c.frames), state: .finished)
        }
    }

    /// Every captured buffer (interleaved floats in −1…1), from the call on; the stream ends
    /// when the recording does, or when its consumer stops iterating.
    public var buffers: AsyncStream<[Float]> {
        let (stream, continuation) = AsyncStream<[Float]>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        let ended = core.withLock { c -> Bool in
            switch c.state {
            case .finished, .failed: return true
            default: c.continuations[id] = continuation; return false
            }
        }
        if ended { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            self?.core.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// The recorder's events, from the call on; ends after the recording does.
    public var events: AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        core.withLock { $0.eventContinuations[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.core.withLock { _ = $0.eventContinuations.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: The capture thread

    private func startThread(_ c: inout Core) {
        running.store(true, ordering: .relaxed)
        let thread = Thread { [weak self] in
            // The recorder is held only for each pass, never across the sleep: a recorder the
            // game lets go of is released, and its deinit stops and finishes the file.
            while ({ () -> Bool in
                guard let recorder = self, recorder.running.load(ordering: .relaxed) else { return false }
                return recorder.tick()
            })() {
                usleep(5_000)
            }
        }
        thread.name = "earshot.recorder"
        c.thread = thread
        thread.start()
    }

    /// One pass of the capture thread; false when the recording is over.
    private func tick() -> Bool {
        core.withLock { c in
            switch c.state {
            case .finished, .failed: return false
            case .paused, .ready: return true
            case .recording: break
            }
            guard let device = c.device, device.isConnected else {
                Self.drain(&c, meter: meter)  // what was captured before the loss is kept
                try? Self.finish(
                    &c, event: .deviceLost(frames: c.frames),
                    state: .failed(.inputDeviceLost(name: c.device?.name ?? configuration.device ?? "default")))
                return false
            }
            Self.drain(&c, meter: meter)
            if case .failed = c.state { return false }
            if c.frames >= c.stopAtFrames {
                try? Self.finish(&c, event: .finished(frames: c.frames), state: .finished)
                return false
            }
            return true
        }
    }

    /// Reads what OpenAL captured (never past the stop point) and writes, meters and hands it on.
    private static func drain(_ c: inout Core, meter: OutputMeter) {
        guard let device = c.device, let writer = c.writer else { return }
        let channels = device.channels
        var frames = min(device.availableFrames, max(0, c.stopAtFrames - c.frames))
        while frames > 0 {
            let n = min(frames, 4_800)
            if c.scratch.count < n * channels { c.scratch = [Int16](repeating: 0, count: n * channels) }
            if c.floats.count != n * channels { c.floats = [Float](repeating: 0, count: n * channels) }
            c.scratch.withUnsafeMutableBufferPointer { buf in
                if let base = buf.baseAddress { device.read(into: base, frames: n) }
            }
            for i in 0..<(n * channels) { c.floats[i] = Float(c.scratch[i]) / 32_768 }
            do throws(EarshotError) {
                try c.scratch.withUnsafeBufferPointer { (b) throws(EarshotError) in
                    try writer.write(UnsafeBufferPointer(rebasing: b[0..<(n * channels)]))
                }
            } catch {
                try? finish(&c, event: .failed(error), state: .failed(error))
                return
            }
            c.floats.withUnsafeMutableBufferPointer { meter.record($0, channels: channels) }
            for continuation in c.continuations.values { continuation.yield(c.floats) }
            c.frames += n
            frames -= n
        }
    }

    /// Closes the device and the file once, posts `event`, ends the streams.
    private static func finish(_ c: inout Core, event: Event, state: State) throws(EarshotError) {
        switch c.state {
        case .finished, .failed: return
        default: break
        }
        c.device?.close()
        c.device = nil
        c.state = state
        let writer = c.writer
        c.writer = nil
        var closeError: EarshotError?
        do throws(EarshotError) { try writer?.close() } catch { closeError = error }
        post(event, to: c)
        for continuation in c.continuations.values { continuation.finish() }
        for continuation in c.eventContinuations.values { continuation.finish() }
        c.continuations = [:]
        c.eventContinuations = [:]
        if let closeError { throw closeError }
    }

    private static func post(_ event: Event, to c: Core) {
        for continuation in c.eventContinuations.values { continuation.yield(event) }
    }
}

extension AudioEngine {
    /// A recorder that captures beside this engine's output, allowed only when the engine's
    /// session is in the ``AudioSession/Category/playAndRecord`` category (as iOS allows the
    /// microphone only then): otherwise ``EarshotError/invalidArgument(_:)``, before any device
    /// is opened.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// engine.session.category = .playAndRecord
    /// let recorder = try engine.makeRecorder(.init(path: "out/chat.wav"))
    /// _ = recorder
    /// ```
    public func makeRecorder(_ configuration: Recorder.Configuration) throws(EarshotError) -> Recorder {
        let category = session.category
        guard category.allowsRecording else {
            throw .invalidArgument(
                "recording needs the session's playAndRecord category (it is \(category)); set session.category = .playAndRecord"
            )
        }
        return try Recorder(configuration: configuration)
    }
}
