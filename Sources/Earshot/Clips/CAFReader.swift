/// Reads Core Audio Format files: `lpcm` (8/16/24/32-bit integer, 32/64-bit float, either
/// endianness) and Apple IMA4 (`ima4`, bit-exact with ffmpeg's decoder), from memory or a path.
///
/// Chunk rules: a `caff` version 1 header; `desc` before `data` (a second `desc` must repeat the
/// first); `data` holds a 4-byte edit count then the audio, and a size of −1 means "to the end of
/// the file"; `pakt` priming and valid frames trim the decoded audio; `kuki`, `chan` and `info` are
/// read, unknown chunks skipped. Trailing bytes after the last whole packet are ignored, as ffmpeg
/// does. Integer samples become 16-bit (wider samples keep their top 16 bits, 8-bit ones are
/// shifted up), float samples 32-bit floats (NaN becomes 0 and ±infinity ±1).
///
/// Hostile input gets a typed error, never a crash: ``EarshotError/unreadableFile(path:reason:)``
/// for something that is not CAF at all, ``EarshotError/malformedFile(_:)`` for a structure that
/// contradicts itself or the file's size, ``EarshotError/unsupportedEncoding(_:)`` naming any
/// other format id. Nothing is allocated beyond what the file's own size justifies.
///
/// ```swift
/// let audio = try CAFReader.decode(path: "Assets/Sounds/step-ima4.caf")
/// let bytes = try FileBytes.read(path: "Assets/Sounds/step-ima4.caf")
/// let file = try CAFReader.parse(bytes, name: "pack/step-ima4.caf")   // structure only
/// ```
public enum CAFReader {
    /// Highest channel count accepted.
    public static let maxChannels = 64
    /// Accepted sample rates (Hz).
    public static let sampleRates: ClosedRange<Double> = 1...768_000

    /// Whether the bytes start like a CAF file (`caff`).
    public static func looksLikeCAF(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 4 && bytes[0] == 0x63 && bytes[1] == 0x61 && bytes[2] == 0x66 && bytes[3] == 0x66
    }

    /// Parses the structure of CAF bytes without decoding audio.
    public static func parse(_ bytes: [UInt8], name: String) throws(EarshotError) -> CAFFile {
        try withBytes(bytes) { (b) throws(EarshotError) in try parse(b, name: name) }
    }

    /// Decodes CAF bytes held in memory.
    public static func decode(
        _ bytes: [UInt8], name: String, options: ClipDecoder.Options = .init()
    ) throws(EarshotError) -> PCMAudio {
        try withBytes(bytes) { (b) throws(EarshotError) in try decode(b, name: name, options: options) }
    }

    /// Decodes CAF bytes held in memory.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, name: String, options: ClipDecoder.Options = .init()
    ) throws(EarshotError) -> PCMAudio {
        let file = try parse(bytes, name: name)
        return try decode(file, bytes: bytes, name: name, options: options)
    }

    /// Decodes the audio of an already parsed file; `bytes` must be the bytes it was parsed from.
    /// The decoded size is checked against `options.maxBytes` before anything is allocated.
    public static func decode(
        _ file: CAFFile, bytes: UnsafeRawBufferPointer, name: String,
        options: ClipDecoder.Options = .init()
    ) throws(EarshotError) -> PCMAudio {
        precondition(
            isConsistent(file, byteCount: bytes.count),
            "CAFReader.decode: the file's counts do not fit the bytes (not what parse returned for them)")
        let cut = try options.judge(file.truncation, name: name)
        var decoded = try decodeAudio(file, bytes: bytes, name: name, options: options)
        decoded.truncation = cut
        return decoded
    }

    private static func decodeAudio(_ file: CAFFile, bytes: UnsafeRawBufferPointer, name: String,
                                    options: ClipDecoder.Options) throws(EarshotError) -> PCMAudio {
        let f = file.format
        let audio = UnsafeRawBufferPointer(
            rebasing: bytes[file.audioOffset..<(file.audioOffset + file.packetCount * f.bytesPerPacket)])
        if f.formatID == "ima4" {
            let total = file.packetCount * IMA4Decoder.framesPerPacket * f.channels
            try options.check(samples: total, bytesPerSample: 2, channels: f.channels, name: name)
            var out = [Int16](repeating: 0, count: total)
            var decoder = IMA4Decoder(channels: f.channels)
            let packetCount = file.packetCount
            try out.withUnsafeMutableBufferPointer { (dst) throws(EarshotError) in
                do throws(EarshotError) {
                    try decoder.decode(packets: audio, count: packetCount, into: dst)
                } catch {
                    if case .malformedFile(let what) = error { throw .malformedFile("\(name): \(what)") }
                    throw error
                }
            }
            if file.firstFrame != 0 || file.frameCount != file.packetCount * IMA4Decoder.framesPerPacket {
                // Trimmed in place (no second copy of the decoded samples).
                let start = file.firstFrame * f.channels
                out.removeSubrange((start + file.frameCount * f.channels)...)
                if start > 0 { out.removeSubrange(..<start) }
            }
            return PCMAudio(sampleRate: file.roundedSampleRate, channels: f.channels, samples: .int16(out))
        }
        // lpcm: one frame per packet.
        let c = f.channels
        let bytesPerSample = f.bitsPerChannel / 8
        let start = file.firstFrame * f.bytesPerPacket
        let src = UnsafeRawBufferPointer(rebasing: audio[start..<(start + file.frameCount * f.bytesPerPacket)])
        let n = file.frameCount * c
        try options.check(samples: n, bytesPerSample: f.isFloat ? 4 : 2, channels: c, name: name)
        if f.isFloat {
            var out = [Float](repeating: 0, count: n)
            out.withUnsafeMutableBufferPointer { dst in
                PCMConversion.floats(src, bytesPerSample: bytesPerSample, littleEndian: f.isLittleEndian, into: dst)
            }
            return PCMAudio(sampleRate: file.roundedSampleRate, channels: c, samples: .float32(out))
        } else {
            var out = [Int16](repeating: 0, count: n)
            out.withUnsafeMutableBufferPointer { dst in
                PCMConversion.integers(src, bytesPerSample: bytesPerSample, littleEndian: f.isLittleEndian, into: dst)
            }
            return PCMAudio(sampleRate: file.roundedSampleRate, channels: c, samples: .int16(out))
        }
    }

    /// Parses the structure of CAF bytes without decoding audio.
    ///
    /// Throws as described on ``CAFReader``; `name` labels the messages.
    public static func parse(_ bytes: UnsafeRawBufferPointer, name: String) throws(EarshotError) -> CAFFile {
        try parse(name: name, length: bytes.count) { offset, count in
            guard offset >= 0, offset < bytes.count, count > 0 else { return [] }
            return Array(bytes[offset..<(offset + min(count, bytes.count - offset))])
        }
    }

    /// The most chunks walked: real files have a handful; a file of millions of empty chunks is
    /// refused rather than walked.
    public static let maxChunks = 1_000_000
    /// The most bytes of an `info` chunk read: it is metadata, and entries past this are dropped.
    public static let maxInfoBytes = 64 << 10

    /// Walks the chunks of a CAF file of `length` bytes whose bytes `read(offset, count)` returns:
    /// checks the `caff` version 1 header, then calls `visit(type, bodyOffset, size)` for each
    /// chunk, its size checked against the file (negative sizes refused, −1 only for `data`, which
    /// then runs to the end) with at most ``maxChunks`` chunks. ``parse(name:length:read:)`` and
    /// the marker reader walk files through it.
    ///
    /// A `data` chunk that states more bytes than remain is the file cut short: with
    /// `shortData`, that is called with the size it states and the chunk is visited with the
    /// bytes there; without it, it is an error like any other chunk running past the end.
    static func walkChunks(
        name: String, length n: Int, read: (Int, Int) -> [UInt8],
        shortData: ((_ stated: Int64) -> Void)? = nil,
        _ visit: (_ type: UInt32, _ body: Int, _ size: Int) throws(EarshotError) -> Void
    ) throws(EarshotError) {
        let head = read(0, 8)
        guard head.count >= 4, head[0] == 0x63, head[1] == 0x61, head[2] == 0x66, head[3] == 0x66 else {
            throw .unreadableFile(path: name, reason: "not a CAF file (no 'caff' header)")
        }
        guard n >= 8, head.count == 8 else {
            throw .malformedFile("\(name): truncated CAF header (\(head.count) bytes)")
        }
        let version = UInt16(head[4]) << 8 | UInt16(head[5])
        guard version == 1 else {
            throw .unsupportedEncoding("\(name): CAF version \(version) (only version 1 exists)")
        }

        var pos = 8, walked = 0
        while n - pos >= 12 {
            walked += 1
            guard walked <= maxChunks else { throw .malformedFile("\(name): more than \(maxChunks) chunks") }
            let header = read(pos, 12)
            guard header.count == 12 else {
                throw .malformedFile("\(name): truncated: the next chunk at offset \(pos) could not be read whole")
            }
            let (type, declared) = header.withUnsafeBytes { h in (readU32(h, 0), Int64(bitPattern: readU64(h, 4))) }
            let chunkStart = pos
            pos += 12
            let remaining = n - pos
            let size: Int
            if declared == -1 {
                guard type == fourCC("data") else {
                    throw .malformedFile(
                        "\(name): chunk '\(fourCCString(type))' at offset \(chunkStart) has size -1 (only the data chunk may)"
                    )
                }
                size = remaining
            } else if declared < 0 {
                throw .malformedFile(
                    "\(name): chunk '\(fourCCString(type))' at offset \(chunkStart) has negative size \(declared)")
            } else if declared > Int64(remaining), type == fourCC("data"), let shortData {
                shortData(declared)
                size = remaining
            } else if declared > Int64(remaining) {
                throw .malformedFile(
                    "\(name): truncated: chunk '\(fourCCString(type))' at offset \(chunkStart) claims \(declared) bytes but only \(remaining) remain"
                )
            } else {
                size = Int(declared)
            }

            try visit(type, pos, size)
            pos += size   // size <= remaining = n - pos: cannot pass n
        }
    }

    /// Parses the structure of a CAF file of `length` bytes whose bytes `read(offset, count)`
    /// returns (fewer only at the end of the file). Only chunk headers and the small chunks'
    /// bodies are read — never the audio — so a path can be judged before its audio is read.
    /// Every size, count and offset taken from the file is combined with checked arithmetic.
    static func parse(name: String, length n: Int, read: (Int, Int) -> [UInt8]) throws(EarshotError) -> CAFFile {
        var format: CAFFile.Format?
        var data: (offset: Int, count: Int, edits: UInt32)?
        var pakt: CAFFile.PacketTable?
        var cookie = 0
        var layoutTag: UInt32?
        var info: [String: String] = [:]

        /// Exactly `count` bytes at `offset`, or a typed error (the file changed under us).
        func body(_ offset: Int, _ count: Int, _ what: String) throws(EarshotError) -> [UInt8] {
            let b = read(offset, count)
            guard b.count == count else {
                throw .malformedFile(
                    "\(name): truncated: the \(what) chunk at offset \(offset) could not be read whole")
            }
            return b
        }

        var statedData: Int64?
        try walkChunks(name: name, length: n, read: read, shortData: { statedData = $0 }) {
            (type, pos, size) throws(EarshotError) in
            switch type {
            case fourCC("desc"):
                guard size >= 32 else { throw .malformedFile("\(name): desc chunk is \(size) bytes (needs 32)") }
                let parsed = try body(pos, 32, "desc").withUnsafeBytes { parseDesc($0) }
                if let existing = format {
                    guard existing == parsed else { throw .malformedFile("\(name): two conflicting desc chunks") }
                } else {
                    try validate(parsed, name: name)
                    format = parsed
                }
            case fourCC("data"):
                guard format != nil else { throw .malformedFile("\(name): data chunk before the desc chunk") }
                guard data == nil else { throw .malformedFile("\(name): two data chunks") }
                guard size >= 4 else {
                    throw .malformedFile("\(name): data chunk is \(size) bytes (shorter than its edit count)")
                }
                data = (pos + 4, size - 4, try body(pos, 4, "data").withUnsafeBytes { readU32($0, 0) })
            case fourCC("pakt"):
                guard size >= 24 else { throw .malformedFile("\(name): pakt chunk is \(size) bytes (needs 24)") }
                guard pakt == nil else { throw .malformedFile("\(name): two pakt chunks") }
                pakt = try body(pos, 24, "pakt").withUnsafeBytes { b in
                    CAFFile.PacketTable(
                        packets: Int64(bitPattern: readU64(b, 0)), validFrames: Int64(bitPattern: readU64(b, 8)),
                        primingFrames: Int32(bitPattern: readU32(b, 16)),
                        remainderFrames: Int32(bitPattern: readU32(b, 20)))
                }
            case fourCC("kuki"):
                cookie = size
            case fourCC("chan"):
                guard size >= 12 else { throw .malformedFile("\(name): chan chunk is \(size) bytes (needs 12)") }
                let (tag, descriptions) = try body(pos, 12, "chan").withUnsafeBytes { b in
                    (readU32(b, 0), Int(readU32(b, 8)))
                }
                guard descriptions <= (size - 12) / 20 else {
                    throw .malformedFile(
                        "\(name): chan chunk claims \(descriptions) channel descriptions in \(size) bytes")
                }
                layoutTag = tag
            case fourCC("info"):
                info = read(pos, min(size, maxInfoBytes)).withUnsafeBytes { parseInfo($0) }
            default:
                break   // unknown chunks are skipped
            }
        }

        guard let format else { throw .malformedFile("\(name): no desc chunk") }
        guard let data else { throw .malformedFile("\(name): no data chunk") }
        // bytesPerPacket >= 1 and framesPerPacket <= 64 were validated; packets <= the file's size.
        let packets = data.count / format.bytesPerPacket
        let decodedFrames = packets * format.framesPerPacket
        var first = 0
        var frames = decodedFrames
        var truncation: Truncation?
        var table = pakt
        if let pakt {
            guard pakt.packets >= 0, pakt.validFrames >= 0, pakt.primingFrames >= 0, pakt.remainderFrames >= 0 else {
                throw .malformedFile(
                    "\(name): pakt has negative counts (packets \(pakt.packets), valid \(pakt.validFrames), priming \(pakt.primingFrames), remainder \(pakt.remainderFrames))"
                )
            }
            // Both fields come from the file: their sum may not fit (a valid count near Int64.max).
            let (claimed, overflow) = Int64(pakt.primingFrames).addingReportingOverflow(pakt.validFrames)
            guard !overflow else {
                throw .malformedFile(
                    "\(name): pakt claims \(pakt.primingFrames) priming + \(pakt.validFrames) valid frames")
            }
            first = Int(pakt.primingFrames)
            frames = Int(pakt.validFrames)
            if claimed > Int64(decodedFrames) {
                truncation = Truncation(
                    expectedFrames: frames, foundFrames: 0,
                    detail: "its pakt chunk states \(pakt.validFrames) valid frames")
            }
        }
        if let stated = statedData {
            let (statedFrames, overflow) = (Int(clamping: stated - 4) / format.bytesPerPacket)
                .multipliedReportingOverflow(by: format.framesPerPacket)
            truncation = Truncation(
                expectedFrames: pakt != nil ? frames : (overflow ? nil : statedFrames), foundFrames: 0,
                detail: "the data chunk states \(stated) bytes, \(data.count + 4) are there")
        }
        if truncation != nil {
            // Cut short: the frames that are there, after the priming ones.
            first = min(first, decodedFrames)
            frames = decodedFrames - first
            truncation?.foundFrames = frames
            if truncation?.expectedFrames ?? .max <= frames { truncation?.expectedFrames = nil }
            table?.validFrames = Int64(frames)
            table?.remainderFrames = 0
        }
        return CAFFile(format: format, audioOffset: data.offset, audioByteCount: data.count, editCount: data.edits,
                       packetTable: table, magicCookieByteCount: cookie, channelLayoutTag: layoutTag, info: info,
                       packetCount: packets, trailingBytes: data.count - packets * format.bytesPerPacket,
                       firstFrame: first, frameCount: frames, truncation: truncation)
    }

    /// Whether `file`'s counts are consistent with each other and with `byteCount` bytes (what
    /// ``parse(_:name:)-(UnsafeRawBufferPointer,_)`` guarantees; a hand-built ``CAFFile`` may not).
    static func isConsistent(_ file: CAFFile, byteCount: Int) -> Bool {
        let f = file.format
        guard f.channels >= 1, f.channels <= maxChannels, f.bytesPerPacket >= 1, f.framesPerPacket >= 1,
            file.audioOffset >= 0, file.packetCount >= 0, file.firstFrame >= 0, file.frameCount >= 0,
            f.formatID == "ima4" || (f.formatID == "lpcm" && f.bytesPerPacket == f.channels * (f.bitsPerChannel / 8))
        else { return false }
        let (audioBytes, o1) = file.packetCount.multipliedReportingOverflow(by: f.bytesPerPacket)
        let (audioEnd, o2) = file.audioOffset.addingReportingOverflow(audioBytes)
        let (decoded, o3) = file.packetCount.multipliedReportingOverflow(by: f.framesPerPacket)
        let (used, o4) = file.firstFrame.addingReportingOverflow(file.frameCount)
        return !o1 && !o2 && !o3 && !o4 && audioEnd <= byteCount && used <= decoded
            && (f.formatID != "ima4" || f.bytesPerPacket == f.channels * IMA4Decoder.bytesPerChannelBlock)
    }

    private static func parseDesc(_ body: UnsafeRawBufferPointer) -> CAFFile.Format {
        CAFFile.Format(
            sampleRate: Double(bitPattern: readU64(body, 0)),
            formatID: fourCCString(readU32(body, 8)),
            formatFlags: readU32(body, 12),
            bytesPerPacket: Int(readU32(body, 16)),
            framesPerPacket: Int(readU32(body, 20)),
            channels: Int(readU32(body, 24)),
            bitsPerChannel: Int(readU32(body, 28)))
    }

    private static func validate(_ f: CAFFile.Format, name: String) throws(EarshotError) {
        guard f.sampleRate.isFinite, sampleRates.contains(f.sampleRate) else {
            throw .malformedFile("\(name): sample rate \(f.sampleRate) Hz (accepted: 1…768000)")
        }
        guard (1...maxChannels).contains(f.channels) else {
            throw .malformedFile("\(name): \(f.channels) channels (accepted: 1…\(maxChannels))")
        }
        guard f.framesPerPacket > 0 else { throw .malformedFile("\(name): zero frames per packet") }
        switch f.formatID {
        case "lpcm":
            guard f.framesPerPacket == 1 else {
                throw .malformedFile("\(name): lpcm with \(f.framesPerPacket) frames per packet (must be 1)")
            }
            let valid = f.isFloat ? [32, 64].contains(f.bitsPerChannel) : [8, 16, 24, 32].contains(f.bitsPerChannel)
            guard valid else {
                throw .unsupportedEncoding(
                    "\(name): lpcm \(f.isFloat ? "float" : "integer") with \(f.bitsPerChannel) bits per sample")
            }
            let expected = f.channels * f.bitsPerChannel / 8
            guard f.bytesPerPacket == expected else {
                throw .malformedFile(
                    "\(name): \(f.bytesPerPacket) bytes per packet does not match \(f.bitsPerChannel)-bit × \(f.channels) channels (\(expected))"
                )
            }
        case "ima4":
            guard f.framesPerPacket == IMA4Decoder.framesPerPacket else {
                throw .malformedFile("\(name): ima4 with \(f.framesPerPacket) frames per packet (must be 64)")
            }
            let expected = f.channels * IMA4Decoder.bytesPerChannelBlock
            guard f.bytesPerPacket == expected else {
                throw .malformedFile(
                    "\(name): \(f.bytesPerPacket) bytes per packet does not match ima4 × \(f.channels) channels (\(expected))"
                )
            }
        default:
            throw .unsupportedEncoding(
                "\(name): CAF format '\(f.formatID)' (Earshot's CAF reader decodes lpcm and ima4)")
        }
    }

    /// The info chunk is metadata only: entries that do not fit are dropped rather than failing
    /// a playable file.
    private static func parseInfo(_ body: UnsafeRawBufferPointer) -> [String: String] {
        guard body.count >= 4 else { return [:] }
        let declared = Int(readU32(body, 0))
        var result: [String: String] = [:]
        var pos = 4
        func cString() -> String? {
            var end = pos
            while end < body.count, body[end] != 0 { end += 1 }
            guard end < body.count else { return nil }
            let s = String(decoding: UnsafeRawBufferPointer(rebasing: body[pos..<end]), as: UTF8.self)
            pos = end + 1
            return s
        }
        var entries = 0
        while entries < declared, let key = cString(), let value = cString() {
            result[key] = value
            entries += 1
        }
        return result
    }

    // MARK: Bytes

    /// `Array.withUnsafeBytes` with the typed error carried through.
    static func withBytes<R>(
        _ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(EarshotError) -> R
    ) throws(EarshotError) -> R {
        let result: Result<R, EarshotError> = bytes.withUnsafeBytes { b in
            Result { () throws(EarshotError) -> R in try body(b) }
        }
        return try result.get()
    }

    @inline(__always)
    static func readU32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }

    @inline(__always)
    static func readU64(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt64 {
        UInt64(readU32(b, at)) << 32 | UInt64(readU32(b, at + 4))
    }

    static func fourCC(_ s: StaticString) -> UInt32 {
        s.withUTF8Buffer { b in UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3]) }
    }

    /// The four characters when printable ASCII, else `0x…`.
    static func fourCCString(_ v: UInt32) -> String {
        let bytes = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        return "0x" + String(v, radix: 16)
    }
}

/// Sample conversions from packed PCM bytes to the representations uploaded to OpenAL.
enum PCMConversion {
    /// 8/16/24/32-bit signed integers to 16-bit: the top 16 bits (8-bit samples shifted up).
    static func integers(_ src: UnsafeRawBufferPointer, bytesPerSample: Int, littleEndian: Bool,
                         into dst: UnsafeMutableBufferPointer<Int16>) {
        let n = dst.count
        precondition(src.count >= n * bytesPerSample, "PCMConversion: source too short")
        guard n > 0, let s = src.baseAddress?.assumingMemoryBound(to: UInt8.self), let d = dst.baseAddress else {
            return
        }
        if bytesPerSample == 1 {
            for i in 0..<n { d[i] = Int16(Int8(bitPattern: s[i])) << 8 }
            return
        }
        // The top two bytes of each sample, whatever its width.
        let hi = littleEndian ? bytesPerSample - 1 : 0
        let lo = littleEndian ? bytesPerSample - 2 : 1
        var p = s
        for i in 0..<n {
            d[i] = Int16(bitPattern: UInt16(p[hi]) << 8 | UInt16(p[lo]))
            p += bytesPerSample
        }
    }

    /// 32/64-bit IEEE floats to 32-bit floats; NaN becomes 0 and ±infinity ±1.
    static func floats(_ src: UnsafeRawBufferPointer, bytesPerSample: Int, littleEndian: Bool,
                       into dst: UnsafeMutableBufferPointer<Float>) {
        let n = dst.count
        precondition(src.count >= n * bytesPerSample, "PCMConversion: source too short")
        guard n > 0, let d = dst.baseAddress else { return }
        for i in 0..<n {
            let v: Float
            if bytesPerSample == 4 {
                let raw = src.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
                v = Float(bitPattern: littleEndian ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw))
            } else {
                let raw = src.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)
                v = Float(Double(bitPattern: littleEndian ? UInt64(littleEndian: raw) : UInt64(bigEndian: raw)))
            }
            d[i] = v.isFinite ? v : (v.isNaN ? 0 : (v > 0 ? 1 : -1))
        }
    }
}
