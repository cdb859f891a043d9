/// Opens a music track's file: a stream (``StreamDecoders/open(path:)``) that is mono or stereo —
/// music's policy, since a track pans stereo by balance and follows emitters in mono.
enum MusicDecoders {
    /// Throws what ``StreamDecoders/open(path:)`` throws, and
    /// ``EarshotError/unsupportedEncoding(_:)`` for more than two channels.
    static func open(path: String) throws(EarshotError) -> any StreamDecoder {
        let decoder = try StreamDecoders.open(path: path)
        guard (1...2).contains(decoder.channels) else {
            decoder.close()
            throw .unsupportedEncoding("\(path): \(decoder.channels) channels (music tracks are mono or stereo)")
        }
        return decoder
    }
}
