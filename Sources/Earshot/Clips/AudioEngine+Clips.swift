/// Loading clips from bytes in memory (assets packed in archives).
extension AudioEngine {
    /// Decodes a file held in memory (any format ``ClipDecoder`` reads) into an OpenAL buffer.
    ///
    /// `name` labels errors and ``ClipInfo/name``. Same results and errors as
    /// ``loadClip(path:forPositioning:)`` on the same bytes.
    ///
    /// ```swift
    /// let bytes = try FileBytes.read(path: "Assets/Sounds/coin.wav")   // or out of your asset archive
    /// let coin = try engine.loadClip(data: bytes, name: "pak/coin.wav")
    /// ```
    public func loadClip(data: [UInt8], name: String, forPositioning: Bool = true) throws(EarshotError) -> Clip {
        try loadClip(data: data, name: name, forPositioning: forPositioning, maxBytes: configuration.maxClipBytes, setting: nil)
    }

    /// ``loadClip(data:name:forPositioning:)`` within a tighter limit (a ``ClipBank``'s budget).
    func loadClip(data: [UInt8], name: String, forPositioning: Bool, maxBytes: Int, setting: String?) throws(EarshotError) -> Clip {
        let audio = try ClipDecoder.decode(data: data, name: name, options: try budgetedOptions(maxBytes: maxBytes, setting: setting))
        return try loadClip(audio, name: name, forPositioning: forPositioning)
    }
}
