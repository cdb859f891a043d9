/// The structure of a Core Audio Format (CAF) file: its format, where its audio is, and the
/// optional packet table, channel layout and text metadata.
///
/// Produced by ``CAFReader/parse(_:name:)-(UnsafeRawBufferPointer,_)``; every count in it has been
/// checked against the file's size, so decoding from it allocates nothing the file does not justify.
///
/// ```swift
/// let bytes = try FileBytes.read(path: "Assets/Sounds/step-ima4.caf")
/// let file = try CAFReader.parse(bytes, name: "step-ima4.caf")
/// print(file.format.codecName, file.frameCount, file.packetCount)   // ima4, frames, packets of 64
/// ```
public struct CAFFile: Sendable, Equatable {
    /// The `desc` chunk: how the audio is encoded.
    public struct Format: Sendable, Equatable {
        /// Frames per second as written (may be fractional).
        public var sampleRate: Double
        /// The four-character format id, e.g. `lpcm` or `ima4`.
        public var formatID: String
        /// Format flags (for `lpcm`: bit 0 float, bit 1 little-endian).
        public var formatFlags: UInt32
        /// Bytes in one packet.
        public var bytesPerPacket: Int
        /// Frames in one packet (1 for `lpcm`, 64 for `ima4`).
        public var framesPerPacket: Int
        /// Channels per frame.
        public var channels: Int
        /// Bits per sample (4 for `ima4`).
        public var bitsPerChannel: Int

        /// Whether `lpcm` samples are IEEE floats.
        public var isFloat: Bool { formatFlags & 1 != 0 }
        /// Whether `lpcm` samples are little-endian.
        public var isLittleEndian: Bool { formatFlags & 2 != 0 }
        /// A short codec name for people: `pcm_s16le`, `pcm_f32be`, `ima4` …
        public var codecName: String {
            guard formatID == "lpcm" else { return formatID }
            return
                "pcm_\(isFloat ? "f" : "s")\(bitsPerChannel)\(bitsPerChannel == 8 ? "" : (isLittleEndian ? "le" : "be"))"
        }
    }

    /// The `pakt` chunk header: how many of the decoded frames are real audio.
    public struct PacketTable: Sendable, Equatable {
        public var packets: Int64
        public var validFrames: Int64
        public var primingFrames: Int32
        public var remainderFrames: Int32
    }

    /// The audio format.
    public var format: Format
    /// Offset of the first audio byte (after the data chunk's edit count).
    public var audioOffset: Int
    /// Audio bytes in the data chunk (after the edit count).
    public var audioByteCount: Int
    /// The data chunk's edit count.
    public var editCount: UInt32
    /// The packet table header, when the file has one.
    public var packetTable: PacketTable?
    /// Bytes in the `kuki` (magic cookie) chunk, 0 when absent.
    public var magicCookieByteCount: Int
    /// The `chan` chunk's layout tag, when present.
    public var channelLayoutTag: UInt32?
    /// Key/value strings of the `info` chunk.
    public var info: [String: String]
    /// Whole packets in the data chunk.
    public var packetCount: Int
    /// Bytes after the last whole packet (a ragged last packet); they are not decoded.
    public var trailingBytes: Int
    /// First decoded frame that is audio (the packet table's priming frames, else 0).
    public var firstFrame: Int
    /// Frames of audio (the packet table's valid frames, else packets × frames per packet).
    public var frameCount: Int
    /// Set when the file is shorter than its `data` or `pakt` chunk says: the counts above are
    /// then what is there. The readers refuse such a file unless
    /// ``ClipDecoder/Options/allowsTruncated``.
    public var truncation: Truncation? = nil
    /// The sample rate rounded to whole hertz, as uploaded.
    public var roundedSampleRate: Int { Int(format.sampleRate.rounded()) }
}
