import Foundation
import XCTest

/// Writes audio files with markers for the marker tests.
///
/// No encoder on this machine writes marker chunks: sox writes none, ffmpeg 5.1 writes neither
/// `cue `/`smpl` in WAV nor `mark`/`regn` in CAF (and drops `-map_chapters` for Ogg Vorbis). So
/// WAV and CAF markers are written by python3 — the audio by its `wave` module (WAV) or `struct`
/// (CAF), the marker chunks built by hand from the RIFF MCI and CAF specifications — or appended
/// by it to a file ffmpeg wrote (RF64). Ogg chapter comments are written by ffmpeg itself
/// (`-metadata CHAPTER000=…`), a real tool. The chunk layouts here are an implementation
/// independent of Earshot's readers (another language, written from the specifications).
enum MarkerFiles {
    struct Cue: Encodable {
        var id: Int
        var frame: Int
        var name: String? = nil
        /// Latin-1 (or any) bytes for the name, as hex, instead of `name`.
        var nameHex: String? = nil
        var length: Int? = nil
        /// Write the frame in dwPosition only (dwSampleOffset 0), as some writers do.
        var positionOnly = false
    }
    struct Loop: Encodable {
        var id: Int
        var start: Int
        var end: Int
    }
    struct CAFMark: Encodable {
        var id: Int
        var frame: Double
    }
    struct CAFRegion: Encodable {
        var id: Int
        var start: Double
        var end: Double
    }
    struct Spec: Encodable {
        var kind = "wav"
        var rate = 48_000
        var frames = 48_000
        var source: String? = nil
        var cues: [Cue] = []
        var loops: [Loop] = []
        /// Overrides the cue chunk's count (a lying count).
        var cueCount: Int? = nil
        var marks: [CAFMark] = []
        var regions: [CAFRegion] = []
        var strings: [String: String] = [:]
        /// Silence with one full-scale sample at each of these frames, instead of a tone.
        var clicks: [Int] = []
    }

    static func write(_ spec: Spec, to path: String) throws {
        guard let python = FFmpegTool.which("python3") else { throw XCTSkip("python3 is not installed") }
        let json = String(decoding: try JSONEncoder().encode(spec), as: UTF8.self)
        _ = try FFmpegTool.run(python, ["-c", script, json, path])
    }

    static let script = #"""
import json, math, struct, sys, wave
spec = json.loads(sys.argv[1]); out = sys.argv[2]
rate, frames = spec["rate"], spec["frames"]
clicks = set(spec["clicks"])
def tone(i):
    if clicks: return 30000 if i in clicks else 0
    return int(8000 * math.sin(2 * math.pi * 440 * i / rate))
def name_bytes(c): return bytes.fromhex(c["nameHex"]) if c.get("nameHex") else c["name"].encode("utf-8")

if spec["kind"] == "wav":
    if spec.get("source"):
        data = bytearray(open(spec["source"], "rb").read())
    else:
        with wave.open(out, "wb") as w:
            w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate)
            w.writeframes(b"".join(struct.pack("<h", tone(i)) for i in range(frames)))
        data = bytearray(open(out, "rb").read())
    E = ">" if data[0:4] == b"RIFX" else "<"   # RIFX: every field big-endian
    def chunk(cid, body):
        b = cid + struct.pack(E + "I", len(body)) + body
        return b + (b"\0" if len(body) % 2 else b"")
    extra = b""
    cues = spec["cues"]
    if cues:
        count = spec.get("cueCount")
        body = struct.pack(E + "I", len(cues) if count is None else count)
        for c in cues:
            body += struct.pack(E + "II4sIII", c["id"], c["frame"], b"data", 0, 0, 0 if c["positionOnly"] else c["frame"])
        extra += chunk(b"cue ", body)
        adtl = b"adtl"
        for c in cues:
            if c.get("name") is not None or c.get("nameHex"):
                adtl += chunk(b"labl", struct.pack(E + "I", c["id"]) + name_bytes(c) + b"\0")
            if c.get("length"):
                adtl += chunk(b"ltxt", struct.pack(E + "II4sHHHH", c["id"], c["length"], b"rgn ", 0, 0, 0, 0))
        extra += chunk(b"LIST", adtl)
    loops = spec["loops"]
    if loops:
        body = struct.pack(E + "9I", 0, 0, 1000000000 // rate, 60, 0, 0, 0, len(loops), 0)
        for l in loops:
            body += struct.pack(E + "6I", l["id"], 0, l["start"], l["end"], 0, 0)
        extra += chunk(b"smpl", body)
    data += extra
    if data[0:4] == b"RF64":
        i = data.find(b"ds64")
        struct.pack_into("<Q", data, i + 8, len(data) - 8)
    else:
        struct.pack_into(E + "I", data, 4, len(data) - 8)
    open(out, "wb").write(data)
else:
    def chunk(cid, body): return cid + struct.pack(">q", len(body)) + body
    def marker(mtype, frame, mid): return mtype + struct.pack(">dIbbbbII", frame, mid, 0, 0, 0, 0, 0, 0)
    b = b""
    marks = spec["marks"]
    if marks:
        b += chunk(b"mark", struct.pack(">II", 0, len(marks)) + b"".join(marker(b"\0\0\0\0", m["frame"], m["id"]) for m in marks))
    regions = spec["regions"]
    if regions:
        body = struct.pack(">II", 0, len(regions))
        for r in regions:
            body += struct.pack(">III", r["id"], 0, 2) + marker(b"rbeg", r["start"], r["id"]) + marker(b"rend", r["end"], r["id"])
        b += chunk(b"regn", body)
    strings = spec["strings"]
    if strings:
        entries, text = b"", b""
        for sid, s in strings.items():
            entries += struct.pack(">Iq", int(sid), len(text))
            text += s.encode("utf-8") + b"\0"
        b += chunk(b"strg", struct.pack(">I", len(strings)) + entries + text)
    if spec.get("source"):   # the marker chunks after a CAF another tool wrote
        b = open(spec["source"], "rb").read() + b
    else:
        head = b"caff" + struct.pack(">HH", 1, 0) + chunk(b"desc", struct.pack(">d4sIIIII", float(rate), b"lpcm", 0, 2, 1, 1, 16))
        b = head + b + chunk(b"data", struct.pack(">I", 0) + b"".join(struct.pack(">h", tone(i)) for i in range(frames)))
    open(out, "wb").write(b)
"""#
}
