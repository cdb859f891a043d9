import Foundation

/// Adds cue points to a RIFF WAV written by a real encoder (sox): a `cue ` chunk and a
/// `LIST/adtl` with a `labl` per cue, appended after its chunks, the RIFF size fixed — the layout
/// Audacity, Reaper and Sound Forge write.
enum CueWAV {
    static func addCues(_ cues: [(name: String, frame: Int)], to path: String) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        func u32(_ v: Int) -> Data { withUnsafeBytes(of: UInt32(v).littleEndian) { Data($0) } }
        func chunk(_ id: String, _ body: Data) -> Data {
            var c = Data(id.utf8) + u32(body.count) + body
            if body.count % 2 == 1 { c.append(0) }
            return c
        }
        var cue = u32(cues.count)
        var adtl = Data("adtl".utf8)
        for (i, c) in cues.enumerated() {
            cue += u32(i + 1) + u32(c.frame) + Data("data".utf8) + u32(0) + u32(0) + u32(c.frame)
            adtl += chunk("labl", u32(i + 1) + Data(c.name.utf8) + Data([0]))
        }
        data += chunk("cue ", cue) + chunk("LIST", adtl)
        data.replaceSubrange(4..<8, with: u32(data.count - 8))
        try data.write(to: URL(fileURLWithPath: path))
    }
}
