/// Loading clips from bytes in memory (assets packed in archives).
extension AudioEngine {
    /// Decodes a file held in memory (any format ``ClipDecoder`` reads) into an OpenAL buffer.
    ///
    /// `name` labels errors and ``ClipInfo/name``. Same results and errors as
    /// ``loadClip(path:forPositioning:)`` on the same bytes.
    ///
    /// ```swift
    /// let hit = try engine.loadClip(data: pak.bytes(of: "hit.caf"), name: "pak/hit.caf")
    /// ```
    public func loadClip(data: [UInt8], name: String, forPositioning: Bool = true) throws(EarshotError) -> Clip {
        let audio = try ClipDecoder.decode(data: data, name: name)
        return try loadClip(audio, name: name, forPositioning: forPositioning)
    }
}
