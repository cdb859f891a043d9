/// An environment failure reported by Earshot: a missing device, a bad file, an exhausted resource.
///
/// Programmer errors (a stale handle on the engine's own objects, a render call on a device that
/// was never a loopback device) trap with `precondition`; everything that depends on the machine
/// or on a file's contents throws an `EarshotError`. Every case's ``description`` is one line that
/// says what happened and, where there is one, what to do about it.
///
/// ```swift
/// do {
///     let engine = try AudioEngine(configuration: .init(output: .systemDefault))
///     _ = engine
/// } catch let error as EarshotError {
///     print("game: \(error)")   // "no audio output device: OpenAL could not open a playback device …"
/// }
/// ```
public enum EarshotError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No playback device could be opened (no sound server, no sound card).
    case noOutputDevice(detail: String)
    /// No capture (input) device could be opened (none, or none by the name asked for).
    case noInputDevice(detail: String)
    /// The input device a recording was capturing from went away (its sound server stopped, a
    /// USB microphone was pulled out).
    case inputDeviceLost(name: String)
    /// A device was asked for by name and OpenAL does not know it.
    case deviceNotFound(name: String)
    /// The device opened but OpenAL refused to create a context on it.
    case contextCreationFailed(detail: String)
    /// The OpenAL implementation lacks an extension Earshot needs for the requested feature.
    case extensionMissing(String)
    /// An OpenAL call failed for an environmental reason (for example `AL_OUT_OF_MEMORY`).
    case openAL(operation: String, code: Int32)
    /// The file does not exist.
    case fileNotFound(path: String)
    /// The file exists but cannot be read as audio (not audio, truncated, a directory, …).
    case unreadableFile(path: String, reason: String)
    /// The container was understood but its encoding is not one Earshot decodes.
    /// The text starts with the file's name: `"NAME: what"`.
    case unsupportedEncoding(String)
    /// The container's structure contradicts itself (sizes beyond the file, impossible counts).
    /// The text starts with the file's name: `"NAME: what is wrong"`.
    case malformedFile(String)
    /// Writing an output file failed.
    case writeFailed(path: String, reason: String)
    /// The engine has been shut down; create a new one.
    case engineShutDown
    /// The clip handle refers to a clip that was unloaded.
    case clipUnloaded
    /// The sound handle refers to a sound that was removed (``AudioEngine/removeSound(_:)``).
    case soundRemoved
    /// A value passed in is outside what the call accepts (a NaN position, a negative pitch).
    case invalidArgument(String)
    /// A file opened fine but its data turned out corrupt while streaming (a damaged Ogg page,
    /// a read error part-way through).
    case decodeFailed(path: String, reason: String)
    /// Every source reserved for music is playing a track.
    case musicSourcesBusy(Int)
    /// Every source kept for ambisonic beds is taken (``AudioEngine/Configuration/bedSources``):
    /// the count, and how many the bed needed.
    case bedSourcesBusy(Int, needed: Int)
    /// Something would take more than a documented limit allows, found **before** allocating:
    /// `name` is the file (or other input), `what` the quantity (`"decoded audio"`, `"output"`),
    /// `size` what it would take and `limit` the limit, both in bytes, and `setting` where the
    /// limit is set (`"Configuration.maxClipBytes"`). See the README's limits table.
    case tooLarge(name: String, what: String, size: Int, limit: Int, setting: String)
    /// The file system holding an output has less free space than the output needs.
    case insufficientDiskSpace(path: String, needed: Int, available: Int)
    /// The device granted `granted` OpenAL sources (mono and stereo together, capped for example
    /// by `sources` in `alsoft.conf`), fewer than ``AudioEngine/Configuration/musicSources``
    /// (`musicSources`) plus the one source the voice pool needs at least.
    case tooFewSources(granted: Int, musicSources: Int)
    /// A handle (``Clip``, ``Sound``, ``MusicTrack``, ``Emitter``, ``Voice``) was passed to an
    /// engine other than the one that made it — also when that engine has been shut down.
    /// Nothing is played or changed. Calls that do not throw (setters, queries, `stop`,
    /// `unload`, `removeSound`, `removeEmitter`) treat such a handle like a stale one: they do
    /// nothing and read as nil, 0 or `.stopped`.
    case wrongEngine
    /// A stream changed its format part-way: a chained Ogg file whose later link has another
    /// sample rate or channel count (`detail` says which). Earshot plays one format per track.
    case formatChanged(path: String, detail: String)
    /// The file gave fewer frames than its header promised when it was opened (`decoded` of
    /// `expected`): it shrank, or was replaced, while being read.
    case fileChangedWhileReading(path: String, decoded: Int, expected: Int)
    /// The file is shorter than its container says: a WAV or RF64 `data` chunk, a CAF `data` or
    /// `pakt` chunk, a FLAC `STREAMINFO` promising more frames than the file holds, or an Ogg
    /// Vorbis or Opus stream that stops without its last page. `expectedFrames` is what the
    /// container promised — for an Ogg stream cut inside a page, at least that page's granule
    /// position; nil when it cannot say (cut between pages) — and `foundFrames` what is there.
    /// `detail` says which structure promised more. ``ClipDecoder/Options/allowsTruncated`` loads
    /// such a file as far as it goes, with a warning, instead.
    case truncated(path: String, expectedFrames: Int?, foundFrames: Int, detail: String)
    /// No game parameter of that name is defined in the engine (``AudioEngine/defineParameter(_:)``);
    /// `nearest` is the defined name closest to it, if any is close.
    case unknownParameter(name: String, nearest: String?)
    /// The engine's monitor (``AudioEngine/Configuration/monitor``) could not open its socket, or
    /// a monitor connection or recording broke the protocol (`detail` says how).
    case monitor(String)
    /// A dialogue line (``AudioEngine/say(_:by:)``) has no text or file in any locale of the
    /// chain tried (``AudioEngine/setLocale(_:)``: `fr-CA → fr → en`), or is not in the table.
    case lineMissing(key: String, localesTried: [String])
    /// The loudness meter's library (libebur128) failed (out of memory); `detail` says where.
    case loudness(String)

    /// The message, on one line: control characters from a file name or a library (a newline, a
    /// tab, an escape sequence) are written as escapes (`\n`, `\t`, `\u{1B}`), so a name cannot
    /// split the line or drive a terminal.
    public var description: String { Self.oneLine(message) }

    /// `text` with every control character (C0, DEL, C1) escaped.
    public static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || RawPath.isEscape($0) })
        else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if RawPath.isEscape(scalar) {
                    out += "\\x" + String(scalar.value - RawPath.escapeBase, radix: 16, uppercase: true)  // a file name's non-UTF-8 byte
                } else if scalar.properties.generalCategory == .control {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    private var message: String {
        switch self {
        case .noOutputDevice(let detail):
            return
                "no audio output device: OpenAL could not open a playback device (an engine on Output.loopback renders without one)"
                + (detail.isEmpty ? "" : "; \(detail)")
        case .noInputDevice(let detail):
            return "no audio input device could be opened" + (detail.isEmpty ? "" : ": \(detail)")
                + " (CaptureDevice.inputDeviceNames() lists the inputs)"
        case .inputDeviceLost(let name):
            return "the input device \"\(name)\" went away"
        case .deviceNotFound(let name):
            return "no playback device named \"\(name)\" (OutputDevice.playbackDeviceNames() lists them)"
        case .contextCreationFailed(let detail):
            return "OpenAL could not create a context: \(detail)"
        case .extensionMissing(let name):
            return "OpenAL lacks the \(name) extension (install OpenAL Soft 1.19 or later)"
        case .openAL(let operation, let code):
            return "OpenAL error \(ALErrorName.name(code)) in \(operation)"
        case .fileNotFound(let path):
            return "\(path): no such file"
        case .unreadableFile(let path, let reason):
            return "\(path): \(reason)"
        case .unsupportedEncoding(let what):
            return "\(what) (unsupported encoding: convert it to PCM or IMA4 CAF, WAV, AIFF, FLAC or Ogg)"
        case .malformedFile(let what):
            return "\(what) (malformed or truncated file: export it again)"
        case .writeFailed(let path, let reason):
            return "\(path): cannot write: \(reason)"
        case .engineShutDown:
            return "the audio engine was shut down; create a new AudioEngine"
        case .clipUnloaded:
            return "the clip was unloaded; load it again before playing it"
        case .soundRemoved:
            return "the sound was removed; make it again with makeSound before playing it"
        case .invalidArgument(let what):
            return "invalid argument: \(what)"
        case .decodeFailed(let path, let reason):
            return "\(path): corrupt audio data while streaming: \(reason) (re-encode or replace the file)"
        case .musicSourcesBusy(let n):
            return "all \(n) music sources are playing; stop a track or raise Configuration.musicSources"
        case .bedSourcesBusy(let n, let needed):
            return "a bed needs \(needed) of the \(n) bed sources and too few are free; stop a bed or raise Configuration.bedSources"
        case .tooLarge(let name, let what, let size, let limit, let setting):
            return
                "\(name): \(what) would take \(Self.bytes(size)), over the limit of \(Self.bytes(limit)) (\(setting))"
        case .insufficientDiskSpace(let path, let needed, let available):
            return "\(path): cannot write: needs \(Self.bytes(needed)) and only \(Self.bytes(available)) are free"
        case .tooFewSources(let granted, let musicSources):
            return
                "the output device granted \(granted) OpenAL sources, fewer than the \(musicSources) music sources (Configuration.musicSources) plus one for voices: lower musicSources or raise `sources` in alsoft.conf"
        case .wrongEngine:
            return "the handle belongs to another audio engine; use it only with the engine that made it"
        case .formatChanged(let path, let detail):
            return
                "\(path): the stream changes format part-way (\(detail)); Earshot plays one format per file: re-encode it as one stream"
        case .fileChangedWhileReading(let path, let decoded, let expected):
            return
                "\(path): the file ended after \(decoded) of the \(expected) frames its header gave: it changed while being read"
        case .truncated(let path, let expected, let found, let detail):
            return
                "\(path): truncated: \(expected.map { "\($0) frames expected" } ?? "more frames expected than are there")"
                + ", \(found) found (\(detail)); export it again, or load it leniently (ClipDecoder.Options.allowsTruncated)"
        case .unknownParameter(let name, let nearest):
            return "no parameter named \"\(name)\""
                + (nearest.map { " (did you mean \"\($0)\"?)" } ?? " (define it with defineParameter first)")
        case .monitor(let detail):
            return "monitor: \(detail)"
        case .lineMissing(let key, let tried):
            return tried.isEmpty
                ? "no dialogue line \"\(key)\" in the line table"
                : "dialogue line \"\(key)\" has no file in any of the locales tried (\(tried.joined(separator: " → ")))"
        case .loudness(let detail):
            return "loudness: \(detail)"
        }
    }

    /// A byte count for messages: exact below 1 KiB, otherwise in KiB/MiB/GiB with one decimal.
    static func bytes(_ n: Int) -> String {
        if n < 1024 { return "\(n) bytes" }
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        var v = Double(n) / 1024, i = 0
        while v >= 1024, i < units.count - 1 { v /= 1024; i += 1 }
        let tenths = Int((v * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[i])"
    }
}
