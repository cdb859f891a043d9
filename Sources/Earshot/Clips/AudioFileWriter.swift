import CSndFile
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Writes interleaved samples to an audio file through libsndfile, in the container its
/// extension names, and only ever leaves a complete file behind.
///
/// - **Containers** by extension: `.wav` (written as RF64 that libsndfile downgrades to a plain
///   WAV when it stays under 4 GiB, so any length comes out readable), `.rf64`, `.w64`, `.caf`,
///   `.aiff`/`.aif` (32-bit sizes: refused up front when the expected length does not fit),
///   `.flac` (16-bit, or 24-bit for `f32`) and `.ogg` (Vorbis). Any other extension is refused
///   by name with ``EarshotError/invalidArgument(_:)``.
/// - **Nothing partial**: samples go to a hidden file beside the target, created exclusively
///   under an unpredictable name (`.NAME.partial-PID-RANDOM`, see ``PartialFile``), renamed
///   over the target by ``close()`` — or, handed to an ``OutputStaging`` (the CLI's
///   `OutputTransaction`), by its commit together with the command's other outputs. A writer
///   released without `close()` (an error, a cancelled render) removes it.
/// - **Room first**: given `expectedFrames`, the folder must have room for them (uncompressed
///   size) before anything is written: ``EarshotError/insufficientDiskSpace(path:needed:available:)``.
///
/// ```swift
/// let writer = try AudioFileWriter(path: "out/demo.wav", sampleRate: 48_000, channels: 2, expectedFrames: 48_000)
/// try writer.write([Float](repeating: 0, count: 96_000))
/// try writer.close()
/// ```
public final class AudioFileWriter {
    /// The sample type of PCM containers.
    public enum Format: String, Sendable, CaseIterable {
        case s16
        case f32
    }

    /// The containers libsndfile writes, by the extension that picks them.
    public enum Container: String, Sendable, CaseIterable {
        case wav, rf64, w64, caf, aiff, flac, ogg

        /// The container for `path`'s extension (case-insensitive; `aif` is AIFF). Throws
        /// ``EarshotError/invalidArgument(_:)`` naming an extension libsndfile does not write.
        public static func forPath(_ path: String) throws(EarshotError) -> Container {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            let ext = name.contains(".") ? String(name.split(separator: ".").last ?? "").lowercased() : ""
            if ext == "aif" { return .aiff }
            guard let c = Container(rawValue: ext) else {
                throw .invalidArgument(
                    "\(path): cannot write \(ext.isEmpty ? "a file without an extension" : "\".\(ext)\" files")"
                        + " (audio outputs are \(allCases.map { "." + $0.rawValue }.joined(separator: ", ")))")
            }
            return c
        }

        /// Whether the container's size fields are 32-bit (at most 4 GiB of data).
        var hasThirtyTwoBitSizes: Bool { self == .aiff }
        var isCompressed: Bool { self == .flac || self == .ogg }
    }

    public let path: String
    public let channels: Int
    public let sampleRate: Int
    public let container: Container
    public private(set) var framesWritten = 0
    private var file: OpaquePointer?
    /// Where the samples go until `close()` renames it over `path`.
    private let partialPath: String
    /// Where `close()` hands the finished file, or nil (`close()` renames it).
    private let transaction: (any OutputStaging)?

    /// Opens a writer for `path`; the container comes from its extension. `expectedFrames`, when
    /// known, is checked against the container's size fields and the folder's free space first.
    ///
    /// With a `transaction`, ``close()`` finishes the file but leaves it hidden and stages it
    /// there: the transaction's commit puts it in place with the other outputs.
    public init(path: String, sampleRate: Int, channels: Int, format: Format = .s16,
                expectedFrames: Int? = nil, transaction: (any OutputStaging)? = nil) throws(EarshotError) {
        precondition(channels > 0 && sampleRate > 0, "AudioFileWriter: bad format \(sampleRate) Hz × \(channels)")
        let container = try Container.forPath(path)
        self.path = path
        self.channels = channels
        self.sampleRate = sampleRate
        self.container = container
        self.transaction = transaction
        let folder = (path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/"))

        if let expectedFrames {
            let bytesPerSample = format == .s16 ? 2 : 4
            let (frameBytes, o1) = expectedFrames.multipliedReportingOverflow(by: channels * bytesPerSample)
            let bytes = o1 ? Int.max : frameBytes
            if container.hasThirtyTwoBitSizes, bytes > Int(UInt32.max) - 4_096 {
                throw .tooLarge(name: path, what: "the output", size: bytes, limit: Int(UInt32.max) - 4_096,
                                setting: "AIFF's 32-bit sizes; write .caf, .w64 or .wav (RF64) instead")
            }
            let needed = container.isCompressed ? bytes / 4 : bytes
            if let available = DiskSpace.available(atFolder: folder.isEmpty ? "." : folder), needed > available {
                throw .insufficientDiskSpace(path: path, needed: needed, available: available)
            }
        }

        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        let pcm = format == .s16 ? Int32(SF_FORMAT_PCM_16) : Int32(SF_FORMAT_FLOAT)
        switch container {
        case .wav, .rf64: info.format = Int32(SF_FORMAT_RF64) | pcm
        case .w64: info.format = Int32(SF_FORMAT_W64) | pcm
        case .caf: info.format = Int32(SF_FORMAT_CAF) | pcm
        case .aiff: info.format = Int32(SF_FORMAT_AIFF) | pcm
        case .flac:
            info.format = Int32(SF_FORMAT_FLAC) | (format == .s16 ? Int32(SF_FORMAT_PCM_16) : Int32(SF_FORMAT_PCM_24))
        case .ogg: info.format = Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
        }
        let (fd, partial) = try PartialFile.create(for: path)
        partialPath = partial
        // libsndfile closes the descriptor with the file (close_desc).
        guard let f = sf_open_fd(fd, Int32(SFM_WRITE), &info, Int32(SF_TRUE)) else {
            let reason = SndFileDecoder.sndfileReason(nil)
            Glibc.close(fd)
            PartialFile.discard(partial)
            throw .writeFailed(path: path, reason: reason)
        }
        if container == .wav {
            // A plain WAV unless the data passes 4 GiB, then RF64: readable at any length.
            sf_command(f, Int32(SFC_RF64_AUTO_DOWNGRADE), nil, Int32(SF_TRUE))
        }
        // Clip rather than wrap when converting float to 16-bit.
        sf_command(f, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        file = f
    }

    public func write(_ samples: [Float]) throws(EarshotError) {
        try samples.withUnsafeBufferPointer { (buf) throws(EarshotError) in try write(buf) }
    }

    public func write(_ samples: UnsafeBufferPointer<Float>) throws(EarshotError) {
        try writeFrames(samples) { sf_writef_float($0, $1, $2) }
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(EarshotError) {
        try writeFrames(samples) { sf_writef_short($0, $1, $2) }
    }

    private func writeFrames<T>(
        _ samples: UnsafeBufferPointer<T>,
        _ writef: (OpaquePointer, UnsafePointer<T>?, sf_count_t) -> sf_count_t
    ) throws(EarshotError) {
        guard let file else { preconditionFailure("AudioFileWriter.write after close") }  // trap: misuse
        precondition(
            samples.count % channels == 0, "AudioFileWriter.write: \(samples.count) samples is not whole frames")
        let frames = samples.count / channels
        guard frames > 0 else { return }
        let n = writef(file, samples.baseAddress, sf_count_t(frames))
        guard n == frames else {
            throw .writeFailed(path: path, reason: SndFileDecoder.sndfileReason(file))
        }
        framesWritten += frames
    }

    public func write(_ audio: PCMAudio) throws(EarshotError) {
        precondition(
            audio.channels == channels,
            "AudioFileWriter.write: \(audio.channels) channels into a \(channels)-channel file")
        switch audio.samples {
        case .int16(let s):
            try s.withUnsafeBufferPointer { (b) throws(EarshotError) in try write(b) }
        case .float32(let s):
            try write(s)
        }
    }

    /// Finishes the file and puts it at ``path`` (replacing what was there), or, in a
    /// transaction, stages it for the transaction's commit. Idempotent.
    public func close() throws(EarshotError) {
        guard let f = file else { return }
        file = nil
        sf_write_sync(f)
        if sf_close(f) != 0 {
            PartialFile.discard(partialPath)
            throw .writeFailed(path: path, reason: "closing failed")
        }
        if let transaction {
            transaction.stage(partialPath, for: path)
        } else {
            try PartialFile.commit([(partialPath, path)])
        }
    }

    /// Abandons the file: nothing is left behind. (Also what releasing an unclosed writer does.)
    public func discard() {
        guard let f = file else { return }
        file = nil
        sf_close(f)
        PartialFile.discard(partialPath)
    }

    /// Removes the partial file of every open writer of this process, for a process that is
    /// about to exit on a signal (Ctrl-C) without running its writers' `deinit`: nothing is left
    /// behind. The writers must not be used afterwards.
    ///
    /// ```swift
    /// let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    /// source.setEventHandler { AudioFileWriter.removePartialFiles(); _exit(130) }
    /// ```
    public static func removePartialFiles() {
        PartialFile.removeTemporaries()
    }

    deinit {
        discard()
    }
}
