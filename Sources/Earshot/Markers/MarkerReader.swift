/// The markers a file holds, and what had to be left out of them.
///
/// Returned by ``MarkerReader``; ``ClipFileInfo/markers`` and ``Clip/markers`` hold its
/// ``markers``.
///
/// ```swift
/// let info = try ClipDecoder.inspect(path: "Assets/Sounds/step.wav")
/// let found = try MarkerReader.read(path: "Assets/Sounds/step.wav", frameCount: info.frames ?? 0)
/// print(found.markers.count, found.leftOut)
/// ```
public struct FileMarkers: Sendable, Equatable, Codable {
    /// The markers, by frame (those on the same frame in the file's order).
    public var markers: [Marker]
    /// Markers the file states that are not in ``markers``: a position past the end of the audio,
    /// a negative or non-finite CAF position, a loop that ends before it starts, an Ogg chapter
    /// time that does not parse. The file is otherwise read.
    public var leftOut: Int
    /// Regions and loops that ran past the end of the audio and were shortened to end there
    /// (their start is exact).
    public var shortened: Int

    public init(markers: [Marker] = [], leftOut: Int = 0, shortened: Int = 0) {
        self.markers = markers
        self.leftOut = leftOut
        self.shortened = shortened
    }
}

/// Reads the markers of an audio file, without decoding its audio and without an engine.
///
/// - WAV (RIFF, RIFX, RF64; behind ID3 tags as libsndfile reads them): `cue ` points, named by
///   the `labl` (else `ltxt` text) of the `LIST`/`adtl` chunk; a cue point with an `ltxt`
///   sample length is a ``Marker/Kind/region``; each `smpl` loop is a ``Marker/Kind/loop`` (its
///   end frame is inclusive, so its length is end − start + 1), named by its cue point's label.
///   A cue point's frame is its `dwSampleOffset`, or its `dwPosition` when the offset is 0 (some
///   writers fill in only that one). `note` chunks are not read. Sony Wave64 is not read.
/// - CAF: `mark` markers (``Marker/Kind/cue``) and `regn` regions (``Marker/Kind/region``, from
///   the region's `rbeg`/`rend` markers, else its first and last), named by the `strg` entry of
///   the marker's or region's id. Positions are frames of the audio after the packet table's
///   priming frames (what the decoder yields); fractional positions round to the nearest frame.
/// - Ogg Vorbis: the chapter convention of Vorbis comments (`CHAPTER001=00:01:02.500`,
///   `CHAPTER001NAME=Verse`; numbers 000 … 999, what ffmpeg, VLC and foobar2000 write and read),
///   each a ``Marker/Kind/cue`` at the nearest frame.
/// - Other formats have none (an empty list).
///
/// Limits, checked before anything is allocated: at most ``maxMarkers`` markers per chunk and
/// per file, marker chunks of at most ``maxChunkBytes`` bytes, names of at most
/// ``maxNameBytes`` bytes (longer ones are cut on a character boundary). Counts are checked
/// against their chunk's size, and every sum and product of values from the file is checked.
/// Names are UTF-8; bytes that are not UTF-8 are read as ISO Latin-1 (what old Windows editors
/// wrote), so a name never fails a file.
///
/// Markers past the end of the audio are left out (counted in ``FileMarkers/leftOut``); a
/// region or loop that runs past it is shortened to end there (``FileMarkers/shortened``). A
/// marker chunk whose structure contradicts itself — a count its size cannot hold, a chunk cut
/// short, one over the limits — throws ``EarshotError/malformedFile(_:)`` naming it. The
/// audio does not depend on it: ``ClipDecoder/inspect(path:)`` reports the reason in
/// ``ClipFileInfo/markersUnreadable`` and a clip loads without markers, with a warning.
///
/// ```swift
/// let info = try ClipDecoder.inspect(path: "Assets/Sounds/step.wav")
/// let found = try MarkerReader.read(path: "Assets/Sounds/step.wav", frameCount: info.frames ?? 0)
/// for m in found.markers { print(m.name, m.time(sampleRate: info.sampleRate)) }
/// ```
public enum MarkerReader {
    /// The most markers read from one file (and from one chunk).
    public static let maxMarkers = 4_096
    /// The most bytes of a name kept; longer names are cut.
    public static let maxNameBytes = 1_024
    /// The largest marker chunk read (`cue `, `LIST`/`adtl`, `smpl`, `mark`, `regn`, `strg`):
    /// 4 MiB, room for ``maxMarkers`` markers with names of ``maxNameBytes``.
    public static let maxChunkBytes = 4 << 20

    /// The markers of the file at `path`, whose audio has `frameCount` frames (from
    /// ``ClipDecoder/inspect(path:)`` or the decoded ``PCMAudio``). Reads only chunk headers and
    /// marker chunks (`pread`), never the audio.
    public static func read(path: String, frameCount: Int) throws(EarshotError) -> FileMarkers {
        try FileCheck.withOpenRegularFile(path) { (fd, length) throws(EarshotError) -> FileMarkers in
            let head = CAFReader.preadAll(fd, 0, ClipDecoder.sniffBytes)
            if head.withUnsafeBytes({ ClipDecoder.route(for: $0) }) == .vorbis {
                return try VorbisCommentMarkers.read(path: path, frameCount: frameCount)
            }
            let raw = try read(name: path, length: length, frameCount: frameCount) { CAFReader.preadAll(fd, $0, $1) }
            return finish(raw, frameCount: frameCount)
        }
    }

    /// The markers of a file held in memory; `name` labels errors.
    public static func read(data: [UInt8], name: String, frameCount: Int) throws(EarshotError) -> FileMarkers {
        try CAFReader.withBytes(data) { (b) throws(EarshotError) in try read(b, name: name, frameCount: frameCount) }
    }

    /// The markers of a file held in memory; the bytes are only borrowed.
    public static func read(
        _ bytes: UnsafeRawBufferPointer, name: String, frameCount: Int
    ) throws(EarshotError) -> FileMarkers {
        if ClipDecoder.route(for: bytes) == .vorbis {
            return try VorbisCommentMarkers.read(bytes, name: name, frameCount: frameCount)
        }
        var result: [Marker] = []
        try HeaderScan.memory(bytes) { (length, read) throws(EarshotError) in
            result = try Self.read(name: name, length: length, frameCount: frameCount, read: read)
        }
        return finish(result, frameCount: frameCount)
    }

    /// The raw markers of a RIFF or CAF file of `length` bytes read through `read(offset, count)`.
    static func read(
        name: String, length: Int, frameCount: Int, read: (Int, Int) -> [UInt8]
    ) throws(EarshotError) -> [Marker] {
        let head = read(0, 4)
        if head.count == 4, head.withUnsafeBytes({ CAFReader.looksLikeCAF($0) }) {
            return try CAFMarkerReader.read(name: name, length: length, read: read)
        }
        return try RIFFMarkerReader.read(name: name, length: length, read: read)
    }

    // MARK: Shared by the readers

    /// Markers past the end left out, regions and loops shortened, the rest sorted by frame.
    /// Markers with a negative frame (never produced by the readers) are left out too.
    static func finish(_ raw: [Marker], frameCount: Int, leftOut: Int = 0) -> FileMarkers {
        var out = FileMarkers(leftOut: leftOut)
        let end = max(0, frameCount)
        out.markers.reserveCapacity(min(raw.count, maxMarkers))
        for var m in raw {
            guard m.frame >= 0, m.frame <= end, out.markers.count < maxMarkers else { out.leftOut += 1; continue }
            if let length = m.length {
                if length < 0 { out.leftOut += 1; continue }
                if length > end - m.frame {
                    m.length = end - m.frame
                    out.shortened += 1
                }
            }
            out.markers.append(m)
        }
        // Stable: markers on the same frame keep the file's order.
        out.markers = out.markers.enumerated().sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }
            .map(\.element)
        return out
    }

    /// A name from a file's bytes: up to the first NUL, at most ``maxNameBytes`` bytes (cut on a
    /// character boundary), UTF-8 when valid, else ISO Latin-1; surrounding spaces trimmed.
    static func name<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        // At most maxNameBytes + 1 bytes are looked at, however far the NUL is: a strg chunk whose
        // 4,096 entries all point at one 4 MiB string without a NUL cost 4,096 × 4 MiB when this
        // scanned to the NUL first (10 s for 4 MiB in release).
        var b = Array(bytes.prefix(maxNameBytes + 1))
        if let nul = b.firstIndex(of: 0) { b.removeSubrange(nul...) }
        let cut = b.count > maxNameBytes
        if cut { b.removeLast(b.count - maxNameBytes) }
        var text = String(validating: b, as: UTF8.self)
        if text == nil, cut {
            // The cut may have split a character: drop its leading bytes (at most three).
            var trimmed = b
            for _ in 0..<3 where text == nil && !trimmed.isEmpty {
                trimmed.removeLast()
                text = String(validating: trimmed, as: UTF8.self)
            }
        }
        let s = text ?? String(String.UnicodeScalarView(b.map { Unicode.Scalar($0) }))
        return s.trimmingSpaces()
    }

    /// Throws unless `size` is at most ``maxChunkBytes``.
    static func checkChunkSize(_ size: Int, _ what: String, name: String) throws(EarshotError) {
        guard size >= 0, size <= maxChunkBytes else {
            throw .malformedFile(
                "\(name): \(what) chunk of \(size) bytes (marker chunks are read up to \(maxChunkBytes) bytes, MarkerReader.maxChunkBytes)"
            )
        }
    }

    /// Throws unless `count` entries of `entryBytes` fit in `room` bytes and `count` is at most
    /// ``maxMarkers`` (checked in that order, before anything is allocated).
    static func checkCount(_ count: Int, entryBytes: Int, room: Int, _ what: String, name: String) throws(EarshotError)
    {
        guard count >= 0, room >= 0, count <= room / entryBytes else {
            throw .malformedFile(
                "\(name): \(what) claims \(count) entries of \(entryBytes) bytes but holds \(max(0, room)) bytes")
        }
        guard count <= maxMarkers else {
            throw .malformedFile(
                "\(name): \(what) claims \(count) markers (at most \(maxMarkers) are read, MarkerReader.maxMarkers)")
        }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs, carriage returns and line feeds.
    func trimmingSpaces() -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
