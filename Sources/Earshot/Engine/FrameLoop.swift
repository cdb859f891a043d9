#if canImport(Glibc)
import Glibc
#endif

/// Drives an engine frame by frame, live or offline: the loop every demo and the CLI share.
///
/// Offline (a `.loopback` engine) it renders each frame's worth of samples and appends them to a
/// WAV file, faster than real time; live it sleeps until each frame is due. The body runs once per
/// frame with the time in seconds, before that frame is heard; then the loop calls
/// ``AudioEngine/update(deltaTime:)``.
///
/// ```swift
/// let loop = FrameLoop(engine: engine)
/// try loop.render(seconds: 4, to: "out/orbit.wav") { t in
///     // move things for time t
/// }
/// ```
public struct FrameLoop {
    /// The longest render: 24 hours.
    public static let maxSeconds: Double = 86_400

    public let engine: AudioEngine
    /// Frames per second of the game loop (the rate of `body` calls).
    public var framesPerSecond: Double

    public init(engine: AudioEngine, framesPerSecond: Double = 60) {
        precondition(framesPerSecond > 0, "FrameLoop: framesPerSecond must be positive")
        self.engine = engine
        self.framesPerSecond = framesPerSecond
    }

    /// Renders `seconds` (more than 0, at most ``maxSeconds``) of a loopback engine into an audio
    /// file (the container from its extension, see ``AudioFileWriter``), calling `body` once per frame.
    /// Returns the number of frames (samples per channel) written.
    @discardableResult
    public func render(seconds: Double, to path: String, format: AudioFileWriter.Format = .s16,
                       _ body: (Double) throws -> Void) throws -> Int {
        guard seconds.isFinite, seconds > 0, seconds <= Self.maxSeconds else {
            throw EarshotError.invalidArgument("render of \(seconds) s: a render lasts more than 0 and at most \(Int(Self.maxSeconds)) s (24 h)")
        }
        let rate = engine.sampleRate
        let channels = engine.outputChannels
        let total = Int((seconds * Double(rate)).rounded())
        // Refused before anything is written when the folder cannot hold it; a failure part-way
        // leaves nothing behind (the writer discards its partial file).
        let writer = try AudioFileWriter(path: path, sampleRate: rate, channels: channels, format: format,
                                         expectedFrames: total)
        var buffer = [Float](repeating: 0, count: (Int(Double(rate) / framesPerSecond) + 1) * channels)
        var done = 0
        var frameIndex = 0
        while done < total {
            try body(Double(done) / Double(rate))
            engine.update(deltaTime: 1 / framesPerSecond)
            frameIndex += 1
            let end = min(total, Int((Double(frameIndex) * Double(rate) / framesPerSecond).rounded()))
            let n = max(1, end - done)
            try buffer.withUnsafeMutableBufferPointer { buf in
                let slice = UnsafeMutableBufferPointer(rebasing: buf[0..<(n * channels)])
                try engine.render(into: slice)
                try writer.write(UnsafeBufferPointer(slice))
            }
            done += n
        }
        try writer.close()
        return done
    }

    /// Runs for `seconds` of wall-clock time on a live engine, calling `body` once per frame; stops
    /// early when `body` returns false.
    public func runLive(seconds: Double, _ body: (Double) throws -> Bool) rethrows {
        let start = Clocks.monotonic()
        var frame = 0
        while true {
            let t = Clocks.monotonic() - start
            if t >= seconds { break }
            if try !body(t) { break }
            engine.update(deltaTime: 1 / framesPerSecond)
            frame += 1
            let due = Double(frame) / framesPerSecond
            if due > t { usleep(useconds_t(min(due - t, seconds - t) * 1e6)) }
        }
    }
}
