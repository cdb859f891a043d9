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
        try loadClip(data: data, name: name, forPositioning: forPositioning, maxBytes: configuration.maxClipBytes, setting: nil)
    }

    /// ``loadClip(data:name:forPositioning:)`` within a tighter limit (a ``ClipBank``'s budget).
    func loadClip(data: [UInt8], name: String, forPositioning: Bool, maxBytes: Int, setting: String?) throws(EarshotError) -> Clip {
        let audio = try ClipDecoder.decode(data: data, name: name, options: decodeOptions(maxBytes: maxBytes, setting: setting))
        return try loadClip(audio, name: name, forPositioning: forPositioning)
    }
}
