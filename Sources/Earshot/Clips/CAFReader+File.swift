#if canImport(Glibc)
import Glibc
#endif

/// Path entry points of ``CAFReader``: the structure is parsed from the chunk headers alone
/// (`pread` of a few bytes each), judged, and only then is the audio read — a file whose header
/// already condemns it (a 2 GiB data chunk over the decode limit) is refused without reading it.
/// A path and the same bytes in memory give the same results and the same errors.
extension CAFReader {
    /// Decodes the CAF file at `path`.
    ///
    /// The decoded size the header implies is checked against `options` (see
    /// ``ClipDecoder/Options``) before any audio is read; then only the data chunk's whole packets
    /// are read into memory.
    public static func decode(path: String, options: ClipDecoder.Options = .init()) throws(EarshotError) -> PCMAudio {
        try FileCheck.withOpenRegularFile(path) { (fd, length) throws(EarshotError) -> PCMAudio in
            let file = try parseHeaders(fd, path: path, length: length)
            _ = try options.judge(file.truncation, name: path)   // refused before its audio is read, unless lenient
            try check(file, name: path, options: options)
            // Only the bytes decoding uses: every packet for ima4, the packet table's frames for
            // lpcm (one frame per packet) — a long data chunk trimmed to a few frames is not read.
            let f = file.format
            let lpcm = f.formatID == "lpcm"
            let offset = file.audioOffset + (lpcm ? file.firstFrame * f.bytesPerPacket : 0)  // within the file: parse checked it
            let count = (lpcm ? file.frameCount : file.packetCount) * f.bytesPerPacket
            let audio = preadAll(fd, offset, count)
            guard audio.count == count else {
                throw .malformedFile(
                    "\(path): truncated: the file ended while its audio was read (\(audio.count) of \(count) bytes)")
            }
            var rebased = file
            rebased.audioOffset = 0
            rebased.audioByteCount = count
            rebased.trailingBytes = 0
            if lpcm {
                rebased.packetCount = file.frameCount
                rebased.firstFrame = 0
            }
            return try withBytes(audio) { (b) throws(EarshotError) in
                try decode(rebased, bytes: b, name: path, options: options)
            }
        }
    }

    /// Parses the structure of the CAF file at `path`, reading only its chunk headers and small
    /// chunks (never the audio).
    public static func parse(path: String) throws(EarshotError) -> CAFFile {
        try FileCheck.withOpenRegularFile(path) { (fd, length) throws(EarshotError) -> CAFFile in
            try parseHeaders(fd, path: path, length: length)
        }
    }

    /// ``parse(name:length:read:)`` through a 64 KiB window over the file, so that a walk of
    /// many small chunks costs one read per window rather than one per chunk.
    private static func parseHeaders(_ fd: Int32, path: String, length: Int) throws(EarshotError) -> CAFFile {
        let window = 64 << 10
        var start = 0
        var cached: [UInt8] = []
        return try parse(name: path, length: length) { offset, count in
            guard count <= window else { return preadAll(fd, offset, count) }
            if offset < start || offset + count > start + cached.count {
                start = offset
                cached = preadAll(fd, offset, window)
            }
            let from = offset - start
            return Array(cached[from..<min(cached.count, from + count)])
        }
    }

    /// Throws ``EarshotError/tooLarge(name:what:size:limit:setting:)`` when the decoded audio the
    /// parsed header implies exceeds `options` — what ``decode(_:bytes:name:options:)`` checks
    /// again before it allocates.
    static func check(_ file: CAFFile, name: String, options: ClipDecoder.Options) throws(EarshotError) {
        let f = file.format
        let frames = f.formatID == "ima4" ? file.packetCount * IMA4Decoder.framesPerPacket : file.frameCount
        let (samples, overflow) = frames.multipliedReportingOverflow(by: f.channels)
        try options.check(
            samples: overflow ? Int.max : samples, bytesPerSample: f.formatID == "lpcm" && f.isFloat ? 4 : 2, channels: f.channels,
            name: name
        )
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file or on an error).
    static func preadAll(_ fd: Int32, _ offset: Int, _ count: Int) -> [UInt8] {
        guard count > 0, offset >= 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        bytes.withUnsafeMutableBytes { buf in
            guard let base = buf.baseAddress else { return }
            while done < count {
                let got = pread(fd, base + done, count - done, off_t(offset + done))
                if got < 0, errno == EINTR { continue }
                if got <= 0 { break }
                done += got
            }
        }
        if done < count { bytes.removeLast(count - done) }
        return bytes
    }
}
