/// How much a clip decoder may allocate and which sample type it produces.
///
/// Every decoder checks ``maxBytes`` **before allocating**: from the header where the file states
/// its length (WAV, AIFF, FLAC, CAF, a seekable Ogg stream), and while decoding where it does not
/// or where the header may lie. A file over the limit throws
/// ``EarshotError/tooLarge(name:what:size:limit:setting:)`` naming the file, the size its decoded
/// audio would take and the limit — a small file that declares or decodes to gigabytes (a
/// decompression bomb) never reaches memory.
///
/// Samples: integer sources become 16-bit integers, floating-point PCM (float CAF and WAV) stays
/// 32-bit float, and lossy codecs (Vorbis, Opus) decode to 16-bit unless ``lossyAsFloat`` asks
/// for float — 16-bit halves the memory of an Ogg clip and is what OpenAL mixes from anyway.
///
/// ```swift
/// var options = ClipDecoder.Options()
/// options.maxBytes = 64 << 20                     // refuse anything over 64 MiB decoded
/// let audio = try ClipDecoder.decode(path: "Assets/Sounds/step.wav", options: options)
/// print(audio.byteCount)
/// ```
extension ClipDecoder {
    public struct Options: Sendable, Equatable {
        /// The default ``maxBytes``: 512 MiB of decoded samples (about 1 h 41 min of 16-bit mono
        /// 44.1 kHz audio, far beyond any clip; stream longer audio: a music track or an ``AudioStream``).
        public static let defaultMaxBytes = 512 << 20
        /// The largest ``maxBytes`` accepted: OpenAL takes a buffer's size as a 32-bit signed
        /// count, so no clip can hold more than 2 GiB − 1 bytes.
        public static let maxBytesCeiling = Int(Int32.max)

        /// The most bytes of decoded samples one clip may take (the size of its OpenAL buffer
        /// before any mono mix-down). Between 1 and ``maxBytesCeiling``.
        public var maxBytes: Int
        /// Decode Vorbis and Opus to 32-bit floats instead of 16-bit integers.
        public var lossyAsFloat: Bool
        /// Where the limit is set, for the error message (`"Configuration.maxClipBytes"`).
        public var limitName: String
        /// Lenient loading: a file shorter than its container says (a WAV `data` chunk cut
        /// short, a FLAC missing its last frames, an Ogg stream without its last page) decodes as
        /// far as it goes, with ``PCMAudio/truncation`` saying what was expected and found (and
        /// ``AudioEngine`` logging a warning), instead of throwing
        /// ``EarshotError/truncated(path:expectedFrames:foundFrames:detail:)``. Off by default:
        /// a truncated asset is an export or download gone wrong, best heard of at once.
        public var allowsTruncated: Bool
        /// Whether a stereo clip counts twice against ``maxBytes``: set by ``AudioEngine``'s
        /// loaders, whose stereo clips also upload their channels as mono buffers (a 2D stereo
        /// voice's balance), so that the budget is checked from the header like any size.
        var countsStereoChannelBuffers = false

        public init(maxBytes: Int = Options.defaultMaxBytes, lossyAsFloat: Bool = false,
                    limitName: String = "ClipDecoder.Options.maxBytes", allowsTruncated: Bool = false) {
            precondition((1...Self.maxBytesCeiling).contains(maxBytes),
                         "ClipDecoder.Options: maxBytes \(maxBytes) is outside 1…\(Self.maxBytesCeiling)")
            self.maxBytes = maxBytes
            self.lossyAsFloat = lossyAsFloat
            self.limitName = limitName
            self.allowsTruncated = allowsTruncated
        }

        /// Throws ``EarshotError/tooLarge(name:what:size:limit:setting:)`` when `samples` samples
        /// of `bytesPerSample` bytes in `channels` channels exceed ``maxBytes`` (overflow counts
        /// as exceeding; stereo twice where ``countsStereoChannelBuffers``).
        func check(samples: Int, bytesPerSample: Int, channels: Int, name: String) throws(EarshotError) {
            let weight = countsStereoChannelBuffers && channels == 2 ? 2 : 1
            let (perSample, overflowWeight) = bytesPerSample.multipliedReportingOverflow(by: weight)
            let (product, overflowBytes) = samples.multipliedReportingOverflow(by: perSample)
            let overflow = overflowWeight || overflowBytes
            let bytes = product
            guard !overflow, samples >= 0, bytes <= maxBytes else {
                throw .tooLarge(name: name, what: weight == 2 ? "decoded audio with its channel buffers" : "decoded audio",
                                size: overflow ? Int.max : bytes,
                                limit: maxBytes, setting: limitName)
            }
        }
    }
}
