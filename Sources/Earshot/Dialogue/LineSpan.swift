/// Where a line's file is heard: its first and last frames above the silence threshold, and
/// its cues, read once when the line is said.
///
/// Only the head and the tail are decoded (at most ``scanSeconds`` each), so a long line costs
/// no more than a short one and never sits in memory: a file silent for longer than that at
/// either end shows (or hides) its subtitle at the end of the scanned stretch.
struct LineSpan: Sendable, Equatable {
    /// A sample below this (−60 dBFS) is silence.
    static let threshold: Float = 0.001
    /// The most seconds decoded at each end.
    static let scanSeconds = 5.0

    /// The file's frames and rate.
    var frameCount: Int
    var sampleRate: Int
    /// First and last audible frames (first ≤ last; 0 and frameCount − 1 for a silent file).
    var firstAudible: Int
    var lastAudible: Int

    /// The line's length in seconds.
    var duration: Double { Double(frameCount) / Double(sampleRate) }

    /// Scans `path`.
    static func scan(path: String) throws(EarshotError) -> LineSpan {
        let decoder = try StreamDecoders.open(path: path)
        defer { decoder.close() }
        let frames = decoder.frameCount, rate = decoder.sampleRate, channels = decoder.channels
        let limit = min(frames, Int(scanSeconds * Double(rate)))
        let chunk = 4_096
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: chunk * channels)
        defer { buffer.deallocate() }
        // Head: the first audible frame.
        var position = 0
        var first: Int?
        while position < limit, first == nil {
            let n = try decoder.read(into: buffer, frames: min(chunk, limit - position))
            guard n > 0 else { break }
            for f in 0..<n where (0..<channels).contains(where: { abs(buffer[f * channels + $0]) >= threshold }) {
                first = position + f
                break
            }
            position += n
        }
        // Tail: the last audible frame in the last `limit` frames.
        let tailStart = max(0, frames - limit)
        try decoder.seek(toFrame: tailStart)
        position = tailStart
        var last: Int?
        while position < frames {
            let n = try decoder.read(into: buffer, frames: min(chunk, frames - position))
            guard n > 0 else { break }
            for f in 0..<n where (0..<channels).contains(where: { abs(buffer[f * channels + $0]) >= threshold }) {
                last = position + f
            }
            position += n
        }
        let a = first ?? (last == nil ? 0 : limit)
        let b = max(a, last ?? (frames - 1))
        return LineSpan(frameCount: frames, sampleRate: rate, firstAudible: a, lastAudible: b)
    }

    /// The cues of a line at `path`: the table's for its locale, else those of an `.srt` or
    /// `.vtt` file beside it (same name), else its markers' names.
    static func cues(path: String, table: [SubtitleCue], frameCount: Int, sampleRate: Int) throws(EarshotError) -> [SubtitleCue] {
        if !table.isEmpty { return table }
        let stem = path.lastIndex(of: ".").map { String(path[..<$0]) } ?? path
        for ext in [".srt", ".vtt"] where DialogueTable.isRegularFile(stem + ext) {
            return try SubtitleFile.read(path: stem + ext).map { SubtitleCue(time: $0.start, text: $0.text) }
        }
        let markers = (try? MarkerReader.read(path: path, frameCount: frameCount))?.markers ?? []
        return markers.filter { !$0.name.isEmpty }.prefix(DialogueTable.maxCues).map {
            SubtitleCue(time: Double($0.frame) / Double(sampleRate), text: $0.name)
        }
    }
}
