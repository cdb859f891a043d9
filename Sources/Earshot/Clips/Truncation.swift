/// What a truncated file held against what its container promised (see
/// ``EarshotError/truncated(path:expectedFrames:foundFrames:detail:)``): kept on audio decoded
/// leniently (``ClipDecoder/Options/allowsTruncated``, ``PCMAudio/truncation``).
///
/// ```swift
/// var options = ClipDecoder.Options()
/// options.allowsTruncated = true
/// let audio = try ClipDecoder.decode(path: "Assets/Sounds/step.wav", options: options)
/// if let cut = audio.truncation { print("only \(cut.foundFrames) frames") }
/// ```
public struct Truncation: Sendable, Equatable, CustomStringConvertible {
    /// The frames the container promised (at least that many for an Ogg stream cut inside a
    /// page), or nil when it cannot say how many more there were.
    public var expectedFrames: Int?
    /// The frames the file holds.
    public var foundFrames: Int
    /// Which structure promised more (`"the data chunk states 288,000 bytes, 144,000 are there"`).
    public var detail: String

    public init(expectedFrames: Int?, foundFrames: Int, detail: String) {
        self.expectedFrames = expectedFrames
        self.foundFrames = foundFrames
        self.detail = detail
    }

    /// One line: expected and found frames and why.
    public var description: String {
        "\(expectedFrames.map { "\($0) frames expected" } ?? "more frames expected than are there"), \(foundFrames) found (\(detail))"
    }

    /// The typed error for the file `name`.
    func error(_ name: String) -> EarshotError {
        .truncated(path: name, expectedFrames: expectedFrames, foundFrames: foundFrames, detail: detail)
    }

    /// The truncation of an Ogg stream whose walk ended as `end` says, `found` frames decoded
    /// (or counted from its pages): nil when every stream ended with its last page.
    static func ogg(_ end: OggLinkCheck.End, found: Int) -> Truncation? {
        guard !end.ended else { return nil }
        let expected = end.cutPageFrames.flatMap { $0 > found ? $0 : nil }
        return Truncation(
            expectedFrames: expected, foundFrames: found,
            detail: end.cutInsidePage
                ? "the Ogg stream ends inside a page, without its end-of-stream page"
                : "the Ogg stream stops without its end-of-stream page")
    }
}

extension ClipDecoder.Options {
    /// Throws ``EarshotError/truncated(path:expectedFrames:foundFrames:detail:)`` for a
    /// truncation, unless ``allowsTruncated``: then returns it, for the audio to carry.
    func judge(_ truncation: Truncation?, name: String) throws(EarshotError) -> Truncation? {
        guard let truncation else { return nil }
        guard allowsTruncated else { throw truncation.error(name) }
        return truncation
    }
}
