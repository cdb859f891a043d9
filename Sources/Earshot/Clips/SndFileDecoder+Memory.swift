import CSndFile

/// Decoding from bytes in memory through libsndfile's virtual I/O (`sf_open_virtual`): the same
/// decoder, the same results and the same errors as from a path.
extension SndFileDecoder: InMemoryAudioDecoder {
    /// Decodes audio held in memory; `name` labels errors. The bytes are only borrowed.
    /// Ogg other than Opus and FLAC goes to ``VorbisFileDecoder`` (libsndfile 1.2.0 leaks on it).
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, name: String, options: ClipDecoder.Options = .init()
    ) throws(EarshotError) -> PCMAudio {
        if ClipDecoder.route(for: bytes) == .vorbis {
            return try VorbisFileDecoder.decode(bytes, name: name, options: options)
        }
        return try withVirtualFile(bytes, name: name) { (file, info, promise) throws(EarshotError) in
            try read(file, info: info, name: name, options: options, promise: promise)
        }
    }

    /// Opens the bytes as a libsndfile file and runs `body` with it, closing it afterwards.
    /// Callers route Ogg Vorbis elsewhere first (libsndfile 1.2.0 leaks on damaged Ogg Vorbis).
    static func withVirtualFile<R>(
        _ bytes: UnsafeRawBufferPointer, name: String,
        _ body: (OpaquePointer, SF_INFO, Preflight) throws(EarshotError) -> R
    ) throws(EarshotError) -> R {
        if let codec = VorbisFileDecoder.oggCodec(bytes), codec != .opus, codec != .flac {
            throw .unreadableFile(
                path: name, reason: "an Ogg stream that is neither Opus nor FLAC (vorbisfile reads Vorbis)")
        }
        let promise = try Preflight.memory(bytes, name: name)  // RIFFCheck: libsndfile 1.2.0 never returns on some malformed LIST chunks
        return try MemorySource.with(bytes) { (user) throws(EarshotError) -> R in
            var io = SF_VIRTUAL_IO(
                get_filelen: { user in sf_count_t(MemorySource.from(user)?.length ?? 0) },
                seek: { offset, whence, user in
                    guard let source = MemorySource.from(user), let p = source.seek(offset: offset, whence: whence)
                    else { return -1 }
                    return sf_count_t(p)
                },
                read: { ptr, count, user in
                    sf_count_t(MemorySource.from(user)?.read(into: ptr, count: Int(max(0, count))) ?? 0)
                },
                write: { _, _, _ in 0 },
                tell: { user in sf_count_t(MemorySource.from(user)?.position ?? 0) })
            var info = SF_INFO()
            guard let file = sf_open_virtual(&io, Int32(SFM_READ), &info, user) else {
                throw promise.openFailure(name: name)
                    ?? .unreadableFile(path: name, reason: openFailure(head: Array(bytes.prefix(16))))
            }
            defer { sf_close(file) }
            return try body(file, info, promise)
        }
    }
}
