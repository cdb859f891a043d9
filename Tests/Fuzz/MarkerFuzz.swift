// libFuzzer harnesses for the marker readers (built with DecoderFuzz.swift: -D FUZZ_MARKERS,
// -D FUZZ_CHAPTERS). Any EarshotError is an accepted outcome; a broken invariant traps.

enum MarkerFuzz {
    /// What every reading must satisfy: at most maxMarkers markers, each inside the audio
    /// (0 ... frameCount, a length ending there at the latest), sorted, names within the limit.
    static func check(_ found: FileMarkers, frameCount: Int) {
        precondition(found.markers.count <= MarkerReader.maxMarkers, "\(found.markers.count) markers")  // trap: a finding
        precondition(found.leftOut >= 0 && found.shortened >= 0, "negative counts")  // trap: a finding
        var last = 0
        for m in found.markers {
            precondition(m.frame >= 0 && m.frame <= frameCount, "marker at \(m.frame) of \(frameCount)")  // trap: a finding
            if let length = m.length { precondition(length >= 0 && length <= frameCount - m.frame, "length \(length) from \(m.frame) of \(frameCount)") }  // trap: a finding
            precondition(m.frame >= last, "markers out of order")  // trap: a finding
            precondition(m.name.unicodeScalars.count <= MarkerReader.maxNameBytes, "a name of \(m.name.unicodeScalars.count) characters")  // trap: a finding
            last = m.frame
        }
    }

    /// A whole file through MarkerReader (RIFF, RF64, CAF, Ogg Vorbis by its first bytes), with
    /// the audio's length picked by the input's size: 0, small, the seeds' 400 frames, or huge.
    static func markers(_ bytes: UnsafeRawBufferPointer) {
        let frames = [0, 1, 400, 4_800, 48_000, ClipFileInfo.maxPlausibleFrames][bytes.count % 6]
        do throws(EarshotError) {
            check(try MarkerReader.read(bytes, name: "fuzz", frameCount: frames), frameCount: frames)
        } catch { _ = error.description }
        // And through inspect, whose markers are checked against the length it reports.
        if let info = try? ClipDecoder.inspect(data: [UInt8](bytes), name: "fuzz") {
            check(FileMarkers(markers: info.markers, leftOut: info.markersLeftOut, shortened: info.markersShortened),
                  frameCount: info.frames ?? ClipFileInfo.maxPlausibleFrames)
        }
    }

    /// The Vorbis chapter comments parser on lines of the input (a comment a line), at a rate
    /// from its first two bytes.
    static func chapters(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 2 else { return }
        let rate = [1, 8_000, 44_100, 48_000, 768_000, Int(bytes[0]) << 8 | Int(bytes[1])][Int(bytes[0]) % 6]
        let lines = bytes.dropFirst(2).split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
        let (markers, leftOut) = VorbisCommentMarkers.parse(comments: lines, sampleRate: rate)
        precondition(markers.count <= 1_000 && leftOut >= 0, "\(markers.count) chapters")  // trap: a finding
        for m in markers {
            precondition(m.frame >= 0, "chapter at \(m.frame)")  // trap: a finding
            if let id = m.id { precondition((0...999).contains(id), "chapter number \(id)") }  // trap: a finding
        }
        check(MarkerReader.finish(markers, frameCount: 48_000), frameCount: 48_000)
    }
}
