import CSndFile
#if canImport(Glibc)
import Glibc
#endif

/// Decodes a whole file through libsndfile: WAV, AIFF, FLAC, Ogg Vorbis/Opus, CAF PCM and more.
///
/// Integer encodings become 16-bit samples, floating-point PCM 32-bit floats, Vorbis and Opus
/// 16-bit unless ``ClipDecoder/Options/lossyAsFloat``. The decoded size is checked against
/// ``ClipDecoder/Options/maxBytes`` from the header's frame count before anything is allocated,
/// and again while reading (a header can understate its length); an unknown length is checked
/// while reading only.
///
/// ```swift
/// let audio = try SndFileDecoder.decode(path: "Assets/Sounds/step.wav")
/// ```
public enum SndFileDecoder {
    /// Decodes the file at `path`.
    ///
    /// Ogg other than Opus and FLAC goes to ``VorbisFileDecoder``: libsndfile 1.2.0 leaks about
    /// 5.8 KB each time it fails to open such a stream, and it is never handed one.
    public static func decode(path: String, options: ClipDecoder.Options = .init()) throws(EarshotError) -> PCMAudio {
        try FileCheck.requireRegularFile(path)
        if try FileBytes.readPrefix(path: path, count: ClipDecoder.sniffBytes).withUnsafeBytes({
            ClipDecoder.route(for: $0) == .vorbis
        }) {
            return try VorbisFileDecoder.decode(path: path, options: options)
        }
        let promise = try Preflight.file(path)
        var info = SF_INFO()
        guard let file = RawPath.withCString(path, { sf_open($0, Int32(SFM_READ), &info) }) else {
            throw promise.openFailure(name: path) ?? .unreadableFile(path: path, reason: openFailure(path: path))
        }
        defer { sf_close(file) }
        return try read(file, info: info, name: path, options: options, promise: promise)
    }

    /// What a file's container promises about its length, found before libsndfile opens it by
    /// the structural checks libsndfile needs anyway (``RIFFCheck``, ``OggLinkCheck``): a WAV or
    /// RF64 `data` chunk cut short, an Ogg Opus or FLAC stream without its last page.
    struct Preflight {
        var riff: Truncation?
        var ogg: OggLinkCheck.End?

        /// Walks the file of `length` bytes read through `read`.
        static func scan(name: String, length: Int, read: (Int, Int) -> [UInt8]) throws(EarshotError) -> Preflight {
            // libsndfile 1.2.0 never returns on some malformed LIST chunks: RIFFCheck refuses them.
            var out = Preflight(riff: try RIFFCheck.truncation(name: name, length: length, read: read))
            let head = read(0, ClipDecoder.sniffBytes)
            if head.withUnsafeBytes({ VorbisFileDecoder.oggCodec($0) }) != nil {
                out.ogg = try OggLinkCheck.validate(name: name, length: length, read: read, vorbisLinks: false)
            }
            return out
        }

        static func file(_ path: String) throws(EarshotError) -> Preflight {
            var out = Preflight()
            try HeaderScan.file(path) { (length, read) throws(EarshotError) in
                out = try scan(name: path, length: length, read: read)
            }
            return out
        }

        static func memory(_ bytes: UnsafeRawBufferPointer, name: String) throws(EarshotError) -> Preflight {
            var out = Preflight()
            try HeaderScan.memory(bytes) { (length, read) throws(EarshotError) in
                out = try scan(name: name, length: length, read: read)
            }
            return out
        }

        /// The error for a file libsndfile could not open: cut short, when its Ogg pages say so.
        func openFailure(name: String) -> EarshotError? {
            guard let ogg, let cut = Truncation.ogg(ogg, found: ogg.lastFrames) else { return nil }
            return cut.error(name)
        }

        /// The truncation of a file whose header libsndfile read as `info`, `decoded` frames
        /// decoded (nil: not decoded, only its header read), `failed` when decoding stopped on an
        /// error. A FLAC's STREAMINFO states its length: fewer frames, or an error before them, is
        /// a FLAC cut short.
        func truncation(info: SF_INFO, decoded: Int?, failed: Bool) -> Truncation? {
            if let riff {
                let found = decoded ?? riff.foundFrames
                return Truncation(
                    expectedFrames: riff.expectedFrames.flatMap { $0 > found ? $0 : nil }, foundFrames: found,
                    detail: riff.detail)
            }
            if let ogg, let cut = Truncation.ogg(ogg, found: decoded ?? ogg.lastFrames) { return cut }
            if info.format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_FLAC), let decoded,
                let stated = knownFrames(info), stated > 0, decoded < stated || failed
            {
                return Truncation(
                    expectedFrames: stated, foundFrames: decoded,
                    detail: "its STREAMINFO states \(stated) frames"
                        + (failed ? "; decoding stopped on a damaged or missing frame" : ""))
            }
            return nil
        }
    }

    /// The frame count libsndfile's header reports, or nil when it is unknown (libsndfile says
    /// `SF_COUNT_MAX` for a stream of unknown length) or negative.
    static func knownFrames(_ info: SF_INFO) -> Int? {
        info.frames >= 0 && info.frames < sf_count_t(Int64.max) ? Int(info.frames) : nil
    }

    static func read(_ file: OpaquePointer, info: SF_INFO, name: String, options: ClipDecoder.Options,
                     promise: Preflight = Preflight()) throws(EarshotError) -> PCMAudio {
        guard info.channels > 0, info.channels <= 64 else {
            throw .malformedFile("\(name): \(info.channels) channels")
        }
        guard info.samplerate > 0, info.samplerate <= 768_000 else {
            throw .malformedFile("\(name): sample rate \(info.samplerate) Hz")
        }
        let channels = Int(info.channels)
        let subtype = info.format & Int32(SF_FORMAT_SUBMASK)
        let isLossy = subtype == Int32(SF_FORMAT_VORBIS) || subtype == Int32(SF_FORMAT_OPUS)
        let isFloat = subtype == Int32(SF_FORMAT_FLOAT) || subtype == Int32(SF_FORMAT_DOUBLE)
            || (isLossy && options.lossyAsFloat)
        let rate = Int(info.samplerate)
        let frames = knownFrames(info)
        let exact = hasExactLength(info) ? frames : nil
        if let frames {
            try options.check(
                samples: frames.multipliedReportingOverflow(by: channels).overflow ? Int.max : frames * channels,
                bytesPerSample: isFloat ? 4 : 2, channels: channels, name: name)
        }
        var audio: PCMAudio
        var failed = false
        if isFloat {
            let out = try readAll(
                file, channels: channels, expectedFrames: frames, name: name, options: options, failed: &failed
            ) { sf_readf_float($0, $1, $2) }
            audio = PCMAudio(sampleRate: rate, channels: channels, samples: .float32(out))
        } else {
            let out = try readAll(
                file, channels: channels, expectedFrames: frames, name: name, options: options, failed: &failed
            ) { sf_readf_short($0, $1, $2) }
            audio = PCMAudio(sampleRate: rate, channels: channels, samples: .int16(out))
        }
        if let cut = promise.truncation(info: info, decoded: audio.frameCount, failed: failed) {
            audio.truncation = try options.judge(cut, name: name)
            return audio
        }
        if failed { try checkReadError(file, name: name) }
        try checkLength(audio.frameCount, exact: exact, name: name)
        return audio
    }

    /// Reads every remaining frame with `readf` (`sf_readf_float` or `sf_readf_short`), in chunks,
    /// into storage reserved once for the header's length (already checked against the limit);
    /// every chunk is checked against the limit before it is appended. `failed` says whether
    /// libsndfile stopped on an error.
    private static func readAll<T: Numeric>(
        _ file: OpaquePointer, channels: Int, expectedFrames: Int?, name: String, options: ClipDecoder.Options,
        failed: inout Bool, _ readf: (OpaquePointer, UnsafeMutablePointer<T>?, sf_count_t) -> sf_count_t
    ) throws(EarshotError) -> [T] {
        let chunkFrames = 16_384
        var out: [T] = []
        if let expectedFrames { out.reserveCapacity(expectedFrames * channels) }
        var chunk = [T](repeating: 0, count: chunkFrames * channels)
        while true {
            let got = chunk.withUnsafeMutableBufferPointer { readf(file, $0.baseAddress, sf_count_t(chunkFrames)) }
            if got <= 0 { break }
            try options.check(
                samples: out.count + Int(got) * channels, bytesPerSample: MemoryLayout<T>.size, channels: channels,
                name: name)
            out.append(contentsOf: chunk[0..<(Int(got) * channels)])
        }
        failed = sf_error(file) != 0   // the caller says why: a file cut short, or damaged
        return out
    }

    /// For inspecting without decoding (`earshot info`, `validate`): throws when the file is cut
    /// short. WAV, RF64 and Ogg say so by their structure; a FLAC is asked for its last stated
    /// frame (a seek and a one-frame read), and only when that fails is it decoded — through
    /// `reopen`, a fresh handle: libFLAC's decoder is left in error by the failed seek — to count
    /// what it holds.
    static func checkWhole(_ file: OpaquePointer, info: SF_INFO, promise: Preflight, name: String,
                           reopen: ((OpaquePointer) -> Void) throws(EarshotError) -> Void) throws(EarshotError) {
        if let cut = promise.truncation(info: info, decoded: nil, failed: false) { throw cut.error(name) }
        guard info.format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_FLAC), let stated = knownFrames(info),
            stated > 0,
            (1...64).contains(info.channels)
        else { return }
        let channels = Int(info.channels)
        var frame = [Float](repeating: 0, count: channels)
        if sf_seek(file, sf_count_t(stated - 1), SEEK_SET) == sf_count_t(stated - 1),
           sf_readf_float(file, &frame, 1) == 1, sf_error(file) == 0 { return }
        var decoded = 0, failed = true
        try reopen { fresh in
            var chunk = [Float](repeating: 0, count: 16_384 * channels)
            while decoded < stated {
                let got = Int(sf_readf_float(fresh, &chunk, 16_384))
                if got <= 0 { break }
                decoded += got
            }
            failed = sf_error(fresh) != 0
        }
        if let cut = promise.truncation(info: info, decoded: decoded, failed: failed) { throw cut.error(name) }
    }

    /// Whether libsndfile's frame count is the exact length: plain PCM, float, µ-law and A-law
    /// (WAV, AIFF, CAF, W64, RF64, AU, FLAC …) — libsndfile fits a header's length to the file at
    /// open. Not for MP3, Vorbis, Opus or ADPCM, whose counts can be estimates.
    static func hasExactLength(_ info: SF_INFO) -> Bool {
        let exact: [Int32] = [SF_FORMAT_PCM_S8, SF_FORMAT_PCM_16, SF_FORMAT_PCM_24, SF_FORMAT_PCM_32, SF_FORMAT_PCM_U8,
                              SF_FORMAT_FLOAT, SF_FORMAT_DOUBLE, SF_FORMAT_ULAW, SF_FORMAT_ALAW].map { Int32($0) }
        return exact.contains(info.format & Int32(SF_FORMAT_SUBMASK))
    }

    /// Fewer frames than an exact header promised: the file shrank (or was replaced) while it
    /// was read. Never a silently short clip.
    static func checkLength(_ decoded: Int, exact: Int?, name: String) throws(EarshotError) {
        if let exact, decoded < exact { throw .fileChangedWhileReading(path: name, decoded: decoded, expected: exact) }
    }

    private static func checkReadError(_ file: OpaquePointer, name: String) throws(EarshotError) {
        let code = sf_error(file)
        if code != 0 {
            throw .unreadableFile(path: name, reason: "decoding failed: \(sndfileReason(file))")
        }
    }

    /// Why `sf_open` failed, in words that are true. libsndfile 1.2 says "File does not exist or
    /// is not a regular file (possibly a pipe?)" whenever its MPEG reader finds no frame it can
    /// decode — of a file already found to exist and be regular; that is reported as what it is.
    static func openFailure(head: [UInt8]) -> String {
        let text = sndfileReason(nil)
        guard text.contains("does not exist or is not a regular file") else { return text }
        let id3 = head.count >= 3 && head[0] == 0x49 && head[1] == 0x44 && head[2] == 0x33
        let frameSync = head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0
        if id3 || frameSync {
            return "a damaged or truncated MP3 (MPEG audio) stream: libmpg123 found no frame it could decode"
        }
        return "libsndfile could not read it (a damaged, truncated or unsupported stream)"
    }

    /// ``openFailure(head:)`` for the file at `path` (its first bytes read again).
    static func openFailure(path: String) -> String {
        openFailure(head: (try? FileBytes.readPrefix(path: path, count: 16)) ?? [])
    }

    static func sndfileReason(_ file: OpaquePointer?) -> String {
        guard let p = sf_strerror(file) else { return "libsndfile could not open it" }
        let text = String(cString: p)
        if text.contains("unknown format") || text.contains("Format not recognised") {
            return "not an audio file libsndfile recognises"
        }
        return text
    }
}

/// File-system checks shared by the decoders: a clear error before a library sees the path.
enum FileCheck {
    static func requireRegularFile(_ path: String) throws(EarshotError) {
        var st = stat()
        guard RawPath.withCString(path, { stat($0, &st) }) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .fileNotFound(path: path) }
            throw .unreadableFile(path: path, reason: String(cString: strerror(errno)))
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw .unreadableFile(path: path, reason: "is a directory")
        }
        // A FIFO or device would block or never end: clips are regular files.
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw .unreadableFile(path: path, reason: "not a regular file")
        }
        guard RawPath.withCString(path, { access($0, R_OK) }) == 0 else {
            throw .unreadableFile(path: path, reason: "permission denied")
        }
    }

    /// Opens `path` (a regular file, checked first, and again on the descriptor) and runs `body`
    /// with its descriptor and size; the descriptor is closed after.
    static func withOpenRegularFile<R>(
        _ path: String, _ body: (Int32, Int) throws(EarshotError) -> R
    ) throws(EarshotError) -> R {
        try requireRegularFile(path)
        let fd = RawPath.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { throw .unreadableFile(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .unreadableFile(path: path, reason: String(cString: strerror(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .unreadableFile(path: path, reason: "not a regular file") }
        return try body(fd, Int(st.st_size))
    }

    /// The size of the regular file at `path` in bytes (0 when it cannot be read).
    static func size(_ path: String) -> Int {
        var st = stat()
        return RawPath.withCString(path, { stat($0, &st) }) == 0 ? Int(st.st_size) : 0
    }
}
