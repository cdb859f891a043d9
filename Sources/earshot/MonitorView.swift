import Earshot
import Foundation

/// What `earshot monitor PID` shows, as text: the state the view keeps between frames (the last
/// frame, the event log, the frame-time history, the keys' settings) and one function that draws
/// it into a given number of rows and columns. Pure: the terminal loop (MonitorTerminal.swift)
/// feeds it and prints what it returns.
struct MonitorView {
    enum Sort: String, CaseIterable {
        case audibility, name, age, bus
    }

    var title: String
    var hello: MonitorHello?
    var frame: MonitorFrame?
    /// The newest events, oldest first.
    var log: [MonitorFrame.EventRow] = []
    /// `updateMs` of the last frames, oldest first.
    var updateHistory: [Double] = []
    var paused = false
    /// Peak holds of the momentary loudness meters (MonitorView+Loudness.swift).
    var peaks = LoudnessPeakHold()
    var sort = Sort.audibility
    /// Shows only voices on this bus (nil: all).
    var busFilter: String?
    /// Shows only voices whose name (the sound's) or clip contains this (case-insensitive; empty: all).
    var filter = ""
    /// The filter being typed after `/` (nil: not typing).
    var typing: String?
    /// Why the stream ended (the engine shut down, the recording ended).
    var ended: String?

    static let logSize = 200
    static let historySize = 24

    init(title: String) {
        self.title = title
    }

    /// Takes one message of the stream. Frames are ignored while paused.
    mutating func take(_ message: MonitorMessage) {
        switch message {
        case .hello(let h): hello = h
        case .frame(let f):
            guard !paused else { return }
            frame = f
            peaks.take(f)
            log += f.events
            if log.count > Self.logSize { log.removeFirst(log.count - Self.logSize) }
            updateHistory.append(f.engine.updateMs)
            if updateHistory.count > Self.historySize {
                updateHistory.removeFirst(updateHistory.count - Self.historySize)
            }
        case .bye: ended = "the engine shut down"
        case .error(let m): ended = "the engine refused: \(m)"
        case .pong: break
        }
    }

    /// What a key does. Returns false for the quit keys (q, Ctrl-C, Escape outside the filter prompt).
    mutating func press(_ key: UInt8) -> Bool {
        if var text = typing {
            switch key {
            case 0x0D, 0x0A:   // Enter: apply
                filter = text
                typing = nil
            case 0x1B:         // Escape: cancel
                typing = nil
            case 0x7F, 0x08:   // Backspace
                if !text.isEmpty { text.removeLast() }
                typing = text
            case 0x20...0x7E:
                if text.count < 40 { text.append(Character(UnicodeScalar(key))) }
                typing = text
            default: break
            }
            return true
        }
        switch key {
        case UInt8(ascii: "q"), 0x03, 0x1B: return false
        case UInt8(ascii: "p"), UInt8(ascii: " "): paused.toggle()
        case UInt8(ascii: "/"): typing = ""
        case UInt8(ascii: "s"):
            let all = Sort.allCases
            sort = all[(all.firstIndex(of: sort)! + 1) % all.count]
        case UInt8(ascii: "b"):
            let buses = frame?.buses.map(\.name) ?? []
            if let current = busFilter, let i = buses.firstIndex(of: current) {
                busFilter = i + 1 < buses.count ? buses[i + 1] : nil
            } else {
                busFilter = buses.first
            }
        case UInt8(ascii: "c"):
            filter = ""
            busFilter = nil
        default: break
        }
        return true
    }

    /// The voices as shown: filtered, then sorted.
    var shownVoices: [MonitorFrame.VoiceRow] {
        guard let frame else { return [] }
        let needle = filter.lowercased()
        let kept = frame.voices.filter { v in
            (busFilter == nil || v.bus == busFilter)
                && (needle.isEmpty || v.name.lowercased().contains(needle) || v.clip.lowercased().contains(needle))
        }
        switch sort {
        case .audibility: return kept.sorted { ($0.audibilityDB, $1.id) > ($1.audibilityDB, $0.id) }
        case .name: return kept.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
        case .age: return kept.sorted { ($0.age, $1.id) > ($1.age, $0.id) }
        case .bus: return kept.sorted { ($0.bus, -$0.audibilityDB, $0.id) < ($1.bus, -$1.audibilityDB, $1.id) }
        }
    }

    // MARK: Drawing

    /// The screen: exactly `rows` lines, none longer than `columns` characters.
    func draw(rows: Int, columns: Int) -> [String] {
        var out: [String] = []
        let f = frame
        var head = "earshot monitor — \(title)"
        if let h = hello { head += " · \(h.process) · \(h.output) \(h.sampleRate) Hz" }
        if let f { head += String(format: " · audio %.2f s · #%d", f.engine.audioTime, f.seq) }
        if paused { head += "  [PAUSED]" }
        if let ended { head += "  [\(ended)]" }
        out.append(head)
        if let e = f?.engine {
            let render = e.renderMs.map { String(format: " · render %.2f ms", $0) } ?? ""
            let limiter =
                e.limiter.active
                ? "LIMITING"
                : e.limiter.limitedFrames > 0
                    ? String(format: "limited (%.1f dB deepest)", e.limiter.deepestDB) : "idle"
            out.append(
                String(format: "update %.3f ms ", e.updateMs) + Self.sparkline(updateHistory) + render
                    + " · voices \(e.realVoices) real / \(e.virtualVoices) virtual / \(e.freeSources) free sources · steals \(e.steals) · refusals \(e.refusals) · limiter \(limiter)"
                    + (e.deviceLost ? " · DEVICE LOST" : ""))
        } else {
            out.append("waiting for the first frame…")
        }
        let prompt = typing.map { "filter: \($0)▏ (Enter applies, Esc cancels)" }
            ?? "sort: \(sort.rawValue) · bus: \(busFilter ?? "all") · filter: \(filter.isEmpty ? "—" : filter)"
        out.append(prompt + "   keys: p pause · / filter · b bus · s sort · c clear · q quit")

        // Buses as meters.
        out.append("BUSES")
        if let f, let master = masterLoudnessLine(f) { out.append(master) }
        for (b, depth) in f?.busTree ?? [] {   // the tree, indented
            out.append(Self.busLine(b, depth: depth, held: f.flatMap { peaks.value(b.name, at: $0.time) }))
        }
        var mix: [String] = []
        if let s = f?.snapshots, !s.isEmpty {
            mix.append(
                "snapshots: "
                    + s.map { "\($0.name) \(Self.num($0.intensity, 2))\($0.ending ? "↓" : "")" }.joined(separator: ", ")
            )
        }
        if let z = f?.zones, !z.isEmpty {
            mix.append("zones: " + z.map { "\($0.name) \(Self.num($0.gain, 2))" }.joined(separator: ", "))
        }
        if let rooms = Self.roomReverbLine(f?.roomReverbs) { mix.append(rooms) }
        if let s = f?.session {
            mix.append(
                "session: \(s.category)\(s.active ? "" : " (inactive)")\(s.otherAudio ? ", other audio" : "")\(s.interrupted ? ", INTERRUPTED" : "")"
            )
        }
        if let p = f?.parameters, !p.isEmpty {
            mix.append("parameters: " + p.map { "\($0.name) \(Self.num($0.value, 2))" }.joined(separator: ", "))
        }
        if !mix.isEmpty { out.append(mix.joined(separator: " · ")) }
        for t in f?.music.tracks ?? [] {
            var line = "music: \(t.name) \(t.state) \(Self.num(t.position, 1))/\(Self.num(t.duration, 1)) s on \(t.bus)"
            if let bar = t.bar, let beat = t.beat { line += " · bar \(bar) beat \(beat)" }
            if let bpm = t.bpm { line += String(format: " (%.0f bpm)", bpm) }
            out.append(line)
        }
        for set in f?.music.sets ?? [] {
            out.append(
                "music set \(set.name): \(set.state ?? "—")"
                    + (set.next.map { n in " → \(n)" + (set.nextAt.map { " at \(Self.num($0, 2)) s" } ?? "") } ?? ""))
        }

        // Events at the bottom, voices in between.
        let eventRows = min(6, max(2, rows / 5))
        let voices = shownVoices
        let omitted = (f?.voicesOmitted ?? 0)
        out.append(
            "VOICES (\(voices.count) shown of \(f?.voices.count ?? 0)\(omitted > 0 ? ", \(omitted) more not sent" : ""))"
        )
        out.append(
            "  " + Self.pad("NAME", 22) + Self.pad("BUS", 8) + Self.pad("STATE", 9)
                + "  GAIN dB  AUDIB dB   DIST m    AGE s  PLAYS")
        let room = max(0, rows - out.count - eventRows - 1)
        for v in voices.prefix(room) {
            let distance = v.distance.map { String(format: "%8.2f", $0) } ?? "       —"
            out.append(
                "  " + Self.pad(v.name, 22) + Self.pad(v.bus, 8) + Self.pad(v.state, 9)
                    + String(format: "%9.1f %9.1f ", v.gainDB, v.audibilityDB) + distance
                    + String(format: " %8.2f  ", v.age)
                    + Self.plays(v) + Self.way(v))
        }
        while out.count < rows - eventRows - 1 { out.append("") }
        out.append("EVENTS")
        for e in log.suffix(eventRows) {
            let what = [e.name, e.detail].compactMap { $0 }.joined(separator: ": ")
            out.append(
                String(format: "  %9.3f  ", e.time) + Self.pad(e.kind, 17) + what + (e.voice.map { " (\($0))" } ?? ""))
        }
        while out.count < rows { out.append("") }
        return out.prefix(rows).map { Self.fit(EarshotError.oneLine($0), columns) }
    }

    /// What a voice row plays: the layer of its sound (`layer 2/4 idle.wav`, under the voice the
    /// game holds), the variation picked (`2/3 step2.wav`), or the clip.
    static func plays(_ v: MonitorFrame.VoiceRow) -> String {
        if let layer = v.layer {
            return "layer \(layer)/\(v.layers ?? layer) \(v.clip)" + (v.leader.map { " of \($0)" } ?? "")
        }
        if let variation = v.variation { return "\(variation)/\(v.variations ?? variation) \(v.clip)" }
        return v.sound == nil ? "" : v.clip
    }

    static func num(_ x: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", x) }

    static func pad(_ s: String, _ width: Int) -> String {
        let s = fit(s, width - 1)
        return s + String(repeating: " ", count: max(0, width - s.count))
    }

    static func fit(_ s: String, _ columns: Int) -> String {
        s.count <= columns ? s : String(s.prefix(max(0, columns)))
    }

    /// A level from −60 to 0 dBFS as a bar of `width` cells.
    static func meter(_ dBFS: Double, width: Int) -> String {
        let fraction = min(max((dBFS + 60) / 60, 0), 1)
        let filled = Int((fraction * Double(width)).rounded())
        return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    }

    /// Values as a row of block characters, scaled to their maximum.
    /// Values that are not finite or below 0 (a recording's, or CPU times read on two threads)
    /// draw as the lowest block.
    static func sparkline(_ values: [Double]) -> String {
        let blocks = Array("▁▂▃▄▅▆▇█")
        let clean = values.map { $0.isFinite && $0 > 0 ? $0 : 0 }
        let top = clean.max() ?? 0
        guard top > 0 else { return String(repeating: "▁", count: values.count) }
        return String(clean.map { blocks[Int(max(0, min(1, $0 / top)) * Double(blocks.count - 1))] })
    }
}
