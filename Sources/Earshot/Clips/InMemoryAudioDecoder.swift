/// A decoder of audio held in memory (``ClipDecoder``, ``SndFileDecoder``, ``VorbisFileDecoder``):
/// each decodes borrowed bytes its own way; decoding an array of bytes is the same for all.
public protocol InMemoryAudioDecoder {
    /// Decodes audio held in memory; `name` labels errors. The bytes are only borrowed.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, name: String, options: ClipDecoder.Options
    ) throws(EarshotError) -> PCMAudio
}

extension InMemoryAudioDecoder {
    /// Decodes audio held in memory; `name` labels errors.
    ///
    /// ```swift
    /// let bytes = try FileBytes.read(path: "Assets/Sounds/step.wav")   // or out of your asset archive
    /// let audio = try SndFileDecoder.decode(data: bytes, name: "step.wav")
    /// ```
    public static func decode(
        data: [UInt8], name: String, options: ClipDecoder.Options = .init()
    ) throws(EarshotError) -> PCMAudio {
        try CAFReader.withBytes(data) { (b) throws(EarshotError) in try decode(b, name: name, options: options) }
    }
}
