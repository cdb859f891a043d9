import CSndFile

/// Writes interleaved float samples to a WAV file through libsndfile, as 16-bit PCM or 32-bit float.
///
/// Append as many blocks as needed, then ``close()``; the header is finalised on close.
///
/// ```swift
/// let writer = try AudioFileWriter(path: "out/demo.wav", sampleRate: 48_000, channels: 2)
/// try writer.write(engine.render(frames: 48_000))
/// try writer.close()
/// ```
public final class AudioFileWriter {
    /// The sample encoding of the written file.
    public enum Format: String, Sendable, CaseIterable {
        /// 16-bit signed PCM (values are clipped to −1…1 and dithered by nothing).
        case s16
        /// 32-bit IEEE float.
        case f32
    }

    public let path: String
    public let channels: Int
    public let sampleRate: Int
    /// Frames written so far.
    public private(set) var framesWritten = 0
    private var file: OpaquePointer?

    public init(path: String, sampleRate: Int, channels: Int, format: Format = .s16) throws(EarshotError) {
        precondition(channels > 0 && sampleRate > 0, "AudioFileWriter: bad format \(sampleRate) Hz × \(channels)")
        self.path = path
        self.channels = channels
        self.sampleRate = sampleRate
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = Int32(SF_FORMAT_WAV) | (format == .s16 ? Int32(SF_FORMAT_PCM_16) : Int32(SF_FORMAT_FLOAT))
        guard let f = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw .writeFailed(path: path, reason: SndFileDecoder.sndfileReason(nil))
        }
        // Clip rather than wrap when converting float to 16-bit.
        sf_command(f, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        file = f
    }

    /// Appends interleaved samples (a whole number of frames).
    public func write(_ samples: [Float]) throws(EarshotError) {
        try samples.withUnsafeBufferPointer { (buf) throws(EarshotError) in try write(buf) }
    }

    /// Appends interleaved samples (a whole number of frames) without copying.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(EarshotError) {
        try writeFrames(samples) { sf_writef_float($0, $1, $2) }
    }

    /// Appends interleaved 16-bit samples (a whole number of frames), written unchanged to a
    /// 16-bit file.
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(EarshotError) {
        try writeFrames(samples) { sf_writef_short($0, $1, $2) }
    }

    /// Appends whole frames with `writef` (`sf_writef_float` or `sf_writef_short`).
    private func writeFrames<T>(_ samples: UnsafeBufferPointer<T>,
                                _ writef: (OpaquePointer, UnsafePointer<T>?, sf_count_t) -> sf_count_t) throws(EarshotError) {
        guard let file else { preconditionFailure("AudioFileWriter.write after close") }  // trap: misuse
        precondition(samples.count % channels == 0, "AudioFileWriter.write: \(samples.count) samples is not whole frames")
        let frames = samples.count / channels
        guard frames > 0 else { return }
        let n = writef(file, samples.baseAddress, sf_count_t(frames))
        guard n == frames else {
            throw .writeFailed(path: path, reason: SndFileDecoder.sndfileReason(file))
        }
        framesWritten += frames
    }

    /// Writes decoded audio: 16-bit samples unchanged, float samples converted (with clipping).
    public func write(_ audio: PCMAudio) throws(EarshotError) {
        precondition(audio.channels == channels, "AudioFileWriter.write: \(audio.channels) channels into a \(channels)-channel file")
        switch audio.samples {
        case .int16(let s):
            try s.withUnsafeBufferPointer { (b) throws(EarshotError) in try write(b) }
        case .float32(let s):
            try write(s)
        }
    }

    /// Finalises the header and closes the file. Safe to call more than once.
    public func close() throws(EarshotError) {
        guard let f = file else { return }
        file = nil
        if sf_close(f) != 0 {
            throw .writeFailed(path: path, reason: "closing failed")
        }
    }

    deinit {
        if let f = file { sf_close(f) }
    }
}
