import CVorbisFile
#if canImport(Glibc)
import Glibc
#endif

/// Decodes Ogg Vorbis with libvorbisfile, from a path (`ov_fopen`) or from memory
/// (`ov_open_callbacks`), to 32-bit float samples.
///
/// Chained streams must keep one channel count and sample rate. A hole in the data (a damaged
/// page) is an error, not a silent gap.
///
/// ```swift
/// let music = try VorbisFileDecoder.decode(path: "Assets/Music/theme.ogg")
/// ```
public enum VorbisFileDecoder {
    /// Whether the bytes start an Ogg stream whose first packet is a Vorbis identification header.
    public static func looksLikeVorbis(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 35 else { return false }
        let ogg: [UInt8] = Array("OggS".utf8), vorbis: [UInt8] = [0x01] + Array("vorbis".utf8)
        return (0..<4).allSatisfy { bytes[$0] == ogg[$0] } && (0..<7).allSatisfy { bytes[28 + $0] == vorbis[$0] }
    }

    /// Decodes the Ogg Vorbis file at `path`.
    public static func decode(path: String) throws(EarshotError) -> PCMAudio {
        try FileCheck.requireRegularFile(path)
        let vf = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        defer { vf.deallocate() }
        let code = ov_fopen(path, vf)
        guard code == 0 else { throw .unreadableFile(path: path, reason: reason(code)) }
        defer { ov_clear(vf) }
        return try read(vf, name: path)
    }

    /// Decodes Ogg Vorbis bytes held in memory.
    public static func decode(data: [UInt8], name: String) throws(EarshotError) -> PCMAudio {
        try CAFReader.withBytes(data) { (b) throws(EarshotError) in try decode(b, name: name) }
    }

    /// Decodes Ogg Vorbis bytes held in memory; the bytes are only borrowed.
    public static func decode(_ bytes: UnsafeRawBufferPointer, name: String) throws(EarshotError) -> PCMAudio {
        try MemorySource.with(bytes) { (user) throws(EarshotError) -> PCMAudio in
            let callbacks = ov_callbacks(
                read_func: { ptr, size, count, user in
                    guard let source = MemorySource.from(user), size > 0 else { return 0 }
                    let (total, overflow) = size.multipliedReportingOverflow(by: count)
                    guard !overflow else { return 0 }
                    return source.read(into: ptr, count: Int(clamping: total)) / size
                },
                seek_func: { user, offset, whence in
                    guard let source = MemorySource.from(user), source.seek(offset: offset, whence: whence) != nil else { return -1 }
                    return 0
                },
                close_func: { _ in 0 },
                tell_func: { user in MemorySource.from(user)?.position ?? 0 })
            let vf = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
            defer { vf.deallocate() }
            let code = ov_open_callbacks(user, vf, nil, 0, callbacks)
            guard code == 0 else { throw .unreadableFile(path: name, reason: reason(code)) }
            defer { ov_clear(vf) }
            return try read(vf, name: name)
        }
    }

    private static func read(_ vf: UnsafeMutablePointer<OggVorbis_File>, name: String) throws(EarshotError) -> PCMAudio {
        guard let first = ov_info(vf, -1) else { throw .malformedFile("\(name): no Vorbis stream information") }
        let channels = Int(first.pointee.channels)
        let rate = first.pointee.rate
        guard (1...64).contains(channels) else { throw .malformedFile("\(name): \(channels) channels") }
        guard (1...768_000).contains(rate) else { throw .malformedFile("\(name): sample rate \(rate) Hz") }
        var out: [Float] = []
        var link: Int32 = 0
        while true {
            var pcm: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
            let got = ov_read_float(vf, &pcm, 4096, &link)
            if got == 0 { break }
            guard got > 0 else {
                throw .malformedFile("\(name): \(got == Int(OV_HOLE) ? "damaged Ogg page (a hole in the data)" : reason(Int32(clamping: got)))")
            }
            if let info = ov_info(vf, link), Int(info.pointee.channels) != channels || info.pointee.rate != rate {
                throw .unsupportedEncoding("\(name): chained Ogg stream changes format at link \(link)")
            }
            guard let pcm else { throw .malformedFile("\(name): vorbisfile returned no samples") }
            let frames = got
            let start = out.count
            out.append(contentsOf: repeatElement(0, count: frames * channels))
            out.withUnsafeMutableBufferPointer { dst in
                for ch in 0..<channels {
                    guard let src = pcm[ch] else { continue }
                    for f in 0..<frames { dst[start + f * channels + ch] = src[f] }
                }
            }
        }
        return PCMAudio(sampleRate: rate, channels: channels, samples: .float32(out))
    }

    static func reason(_ code: Int32) -> String {
        switch code {
        case OV_EREAD: return "read error"
        case OV_ENOTVORBIS: return "not an Ogg Vorbis file"
        case OV_EVERSION: return "unsupported Vorbis version"
        case OV_EBADHEADER: return "bad Vorbis header"
        case OV_EFAULT: return "internal vorbisfile error"
        case OV_EBADLINK: return "damaged Ogg link"
        case OV_EINVAL: return "invalid Vorbis stream"
        default: return "vorbisfile error \(code)"
        }
    }
}
