import Earshot
import EarshotBanks
import EarshotScenes
import Foundation

/// Bank fuzzing (issue 28): banks written from every bank key (Demos/Scenes/README.md, "Banks")
/// with values at their ranges' edges, just inside and outside them, in random combinations and
/// with `include:` graphs (chains, diamonds, now and then a cycle or a missing file); each
/// validated as `earshot validate` does, loaded into a loopback engine when valid, every sound
/// played and rendered (a `dialogue:` table's line said: BankValueFuzzer+Dialogue.swift) — then one field edited and the bank reloaded, as a designer saving does.
///
/// A finding is a bank that validates but does not load; a valid edit that `reload()` refuses;
/// an invalid edit `reload()` takes (or one that changes the bank); a render with a non-finite
/// sample; or (by killing the process) a trap or signal. Invalid banks are an accepted outcome.
///
/// ```swift
/// let report = BankValueFuzzer(assets: "Assets", seed: 1).run(cases: 50)
/// print(report.summary)
/// ```
public struct BankValueFuzzer {
    public var assets: String
    public var seed: UInt64
    /// The folder each case's files are written to (a tmpfs by default).
    public var scratch: String = "/dev/shm"

    public init(assets: String, seed: UInt64) {
        self.assets = assets.hasPrefix("/") ? assets : FileManager.default.currentDirectoryPath + "/" + assets
        self.seed = seed
    }

    public struct Report: FuzzReport {
        public var cases = 0
        public var valid = 0
        public var loaded = 0
        public var reloads = 0
        public var refusedEdits = 0
        /// Edits that emptied a file the bank reads (each must be refused).
        public var emptiedFiles = 0
        /// Banks loaded with a `dialogue:` line table (BankValueFuzzer+Dialogue.swift).
        public var dialogues = 0
        /// Banks loaded with a loudness-normalised clip.
        public var normalisedClips = 0
        public var findings: [String] = []
        public var seconds = 0.0
        public var summary: String {
            "bank values: \(cases) cases (\(valid) valid, \(loaded) loaded, \(reloads) reloads, \(refusedEdits) edits refused, \(emptiedFiles) files emptied, \(dialogues) with a line table, \(normalisedClips) with normalised clips) in "
                + String(format: "%.1f s", seconds) + ", \(findings.count) findings"
        }
    }

    /// Runs `cases` banks (or until `seconds` have passed), and returns what happened.
    public func run(cases: Int, seconds: Double = .infinity, log: ((String) -> Void)? = nil) -> Report {
        let folder = "\(scratch)/earshot-bank-fuzz-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        return FuzzDriver(seed: seed, logEvery: 200).run(Report(), cases: cases, seconds: seconds, log: log) { i, g, report in
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let files = bankFiles(&g)
            for (name, text) in files { try? text.write(toFile: "\(folder)/\(name)", atomically: false, encoding: .utf8) }
            let main = "\(folder)/main.yaml"
            func dump() -> String { files.map { "--- \($0.0)\n\($0.1)" }.joined(separator: "\n") }
            let checked = SceneBank.check(path: main)
            if case .success(let b) = checked, let proc = b.includedFiles.first(where: { $0.hasPrefix("/proc/") }) {
                report.findings.append("case \(i): a bank including \(proc) validated\n\(dump())")
            }
            guard case .success(let definition) = checked else { return }
            report.valid += 1
            guard let engine = try? AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000))) else { return }
            defer { engine.shutdown() }
            let bank: SoundBank
            do { bank = try SoundBank(path: main, engine: engine) } catch {
                report.findings.append("case \(i): valid but not loaded: \(error)\n\(dump())")
                return
            }
            report.loaded += 1
            if definition.clips.contains(where: { $0.loudness != nil }) { report.normalisedClips += 1 }
            checkDialogue(bank, engine, case: i, into: &report)   // BankValueFuzzer+Dialogue.swift
            playAll(bank, engine, definition.sounds.map(\.id), case: i, into: &report)
            // One field edited, as a save does: the edit is valid or not; reload must agree.
            let (file, edited) = edit(&g, files)
            // An emptied file the bank reads (not one it does not include) must be refused.
            let emptied = edited.isEmpty && (bank.definition?.files ?? []).contains { ($0 as NSString).lastPathComponent == file }
            if emptied { report.emptiedFiles += 1 }
            try? edited.write(toFile: "\(folder)/\(file)", atomically: false, encoding: .utf8)
            let before = bank.soundNames
            let tableBefore = engine.dialogueTable
            let expected = SceneBank.check(path: main)
            report.reloads += 1
            do throws(BankError) {
                _ = try bank.reload()
                if emptied {   // a save seen half-way: never applied
                    report.findings.append("case \(i): an emptied \(file) was applied: sounds \(bank.soundNames)")
                } else if case .success(let b) = expected {
                    if bank.soundNames != b.sounds.map(\.id).sorted() {
                        report.findings.append("case \(i): reloaded sounds \(bank.soundNames), the file has \(b.sounds.map(\.id).sorted())\n\(dump())")
                    }
                } else {
                    report.findings.append("case \(i): an invalid edit of \(file) was taken\n\(edited)")
                }
                if engine.dialogueTable != bank.dialogue?.table { report.findings.append("case \(i): after a reload the engine's line table is not the bank's") }
                checkDialogue(bank, engine, case: i, into: &report)
            } catch {
                report.refusedEdits += 1
                if case .success = expected, case .invalid = error, !emptied {
                    report.findings.append("case \(i): a valid edit of \(file) refused: \(error)\n\(edited)")
                }
                if bank.soundNames != before { report.findings.append("case \(i): a refused edit changed the bank\n\(edited)") }
                if engine.dialogueTable != tableBefore { report.findings.append("case \(i): a refused edit changed the line table\n\(edited)") }
            }
            playAll(bank, engine, bank.soundNames, case: i, into: &report)
            bank.unload()
            if engine.dialogueTable != nil { report.findings.append("case \(i): the bank's line table outlived its unload") }
            if engine.stats.clips != 0 { report.findings.append("case \(i): \(engine.stats.clips) clips left after unload\n\(dump())") }
        }
    }

    /// Plays each sound (positioned and not), renders 50 ms in game frames: every sample finite.
    func playAll(_ bank: SoundBank, _ engine: AudioEngine, _ names: [String], case i: Int, into report: inout Report) {
        var g = SplitMix64(seed: seed &+ UInt64(i))
        for (k, name) in names.enumerated() {
            var options = k % 2 == 0 ? SoundPlayOptions(position: Vector3(1, 0, -1)) : SoundPlayOptions(pan: -0.5)
            if k % 3 == 2 {
                // On an emitter with explicit settings of its own (the precedence's middle step).
                let at = Vector3(Float(g.nextUnit() * 60), 0, -1)
                if let e = try? engine.makeEmitter(SceneValueFuzzer.explicitDistance(&g, at: at)) { options = SoundPlayOptions(emitter: e) }
            }
            do { _ = try bank.play(name, options: options) } catch {
                report.findings.append("case \(i): play \(name): \(error)")
            }
        }
        for _ in 0..<3 {
            engine.update(deltaTime: 1.0 / 60)
            guard let out = try? engine.render(frames: 800) else { continue }
            if let bad = out.firstIndex(where: { !$0.isFinite }) { report.findings.append("case \(i): sample \(bad) is \(out[bad])") }
        }
    }

    // MARK: Banks

    typealias N = (ClosedRange<Double>, Bool) -> String

    /// Files that are regular but whose size `stat` does not tell (issue 35.14): an include of one
    /// is read to at most the 64 MiB limit and refused, never read to its end.
    static let procFiles = ["/proc/self/pagemap", "/proc/self/status", "/proc/self/maps", "/proc/self/environ"]

    /// The files of one case: main.yaml and up to three included banks.
    func bankFiles(_ g: inout SplitMix64) -> [(String, String)] {
        let count = Int(g.next() % 4)
        var files: [(String, String)] = []
        for f in 0...count {
            let name = f == 0 ? "main.yaml" : "b\(f).yaml"
            var includes: [String] = []
            for other in 1...max(1, count) where other > f && count > 0 && SceneValueFuzzer.chance(&g, 0.6) { includes.append("b\(other).yaml") }
            if SceneValueFuzzer.chance(&g, 0.03) { includes.append("main.yaml") }   // a cycle (or an include of the includer)
            if SceneValueFuzzer.chance(&g, 0.02) { includes.append("missing.yaml") }
            // /proc-like files: regular, `stat` says 0 bytes, and they read on (pagemap: terabytes).
            if SceneValueFuzzer.chance(&g, 0.01) { includes.append(SceneValueFuzzer.pick(&g, Self.procFiles)) }
            files.append((name, bank(&g, prefix: f == 0 ? "m" : "b\(f)", includes: includes)))
        }
        // The main bank's dialogue: key and its table (BankValueFuzzer+Dialogue.swift), from a
        // generator of its own so that the other fields are drawn as before.
        var side = SplitMix64(seed: g.next() ^ 0xD1A1_0615)
        if SceneValueFuzzer.chance(&side, 0.3) {
            let d = dialogue(&side, outside: SceneValueFuzzer.chance(&side, 0.2))
            files[0].1 += d.key
            if let table = d.table { files.append(table) }
        }
        return files
    }

    /// One bank: every key with some probability, ids prefixed by `prefix` (now and then not:
    /// a duplicate across banks).
    func bank(_ g: inout SplitMix64, prefix: String, includes: [String]) -> String {
        let outside = SceneValueFuzzer.chance(&g, 0.2)
        func n(_ r: ClosedRange<Double>, whole: Bool = false) -> String {
            SceneValueFuzzer.number(&g, r, whole: whole, outside: outside && SceneValueFuzzer.chance(&g, 0.1))
        }
        func maybe(_ p: Double = 0.5) -> Bool { SceneValueFuzzer.chance(&g, p) }
        let p = maybe(0.05) ? "x" : prefix
        var y = ""
        if maybe(0.3) { y += "name: \(prefix) bank\n" }
        if !includes.isEmpty { y += "include: [\(includes.joined(separator: ", "))]\n" }
        if maybe(0.2) { y += "referenceDistance: \(n(1e-6...1e9))\n" }
        if maybe(0.2) { y += "rolloff: \(n(0...100))\n" }
        y += SceneValueFuzzer.distanceKeys(&g, outside: outside, block: true, newOnly: true)
        // Parameters (each bank its own name, now and then a shared one: a duplicate across banks).
        let parameter = maybe(0.1) ? "rpm" : "\(p)rpm"
        let hasParameter = maybe(0.5)
        if hasParameter {
            y += "parameters:\n  \(parameter): { range: [\(n(-100...0)), \(n(1...8_000))], default: \(n(0...1)), seek: \(n(0...10_000)) }\n"
            y += SceneValueFuzzer.labelledParameter({ g.nextUnit() }, prefix: p)   // +Timeline
        }
        func curve(_ property: ClosedRange<Double>) -> String {
            let name = maybe(0.05) ? "undefined" : parameter
            var x = -100.0
            var points: [String] = []
            for _ in 0..<(1 + Int(g.next() % 4)) {
                points.append("[\(x), \(n(property))]")
                x += maybe(0.05) ? 0 : 1 + g.nextUnit() * 3_000
            }
            return "{ parameter: \(name), curve: [\(points.joined(separator: ", "))]"
                + (maybe(0.3) ? ", shape: \(SceneValueFuzzer.pick(&g, ["linear", "exponential", "sCurve"]))" : "") + " }"
        }
        if maybe(0.03) { y += SceneValueFuzzer.pick(&g, ["duration: 1\n", "events: []\n", "listener: { position: [0, 0, 0] }\n"]) }
        let clipFiles = ["Sounds/beep.wav", "Sounds/coin-ima4.caf", "Sounds/step.wav", "Sounds/hum-loop.wav", "Sounds/wind-stereo.caf"]
        y += "clips:\n"
        for (i, f) in clipFiles.enumerated() where maybe(0.6) || i == 0 {   // the mapping form now and then
            y += "  \(p)c\(i): \(SceneValueFuzzer.clipEntry("\(assets)/\(f)", id: "\(p)c\(i)", after: y, outside: outside))\n"
        }
        let hasBuses = maybe(0.4)
        if hasBuses {
            y += "buses:\n  \(p)bus: { gain: \(hasParameter && maybe(0.4) ? curve(-144...24) : n(-120...24)) }\n"
            if maybe(0.5) { y += "  \(p)duck: { ducks: { sfx: { level: \(n(-120...0)), attack: \(n(0...10)), release: \(n(0...10)), threshold: \(n(-120...0)), hold: \(n(0...10)) } } }\n" }
        }
        // The bus tree and VCAs (SceneValueFuzzer+BusTree.swift), from a copy of the generator.
        var treeSide = g
        var treeDraw = SplitMix64(seed: treeSide.next() ^ 0x0B05_7EE1)
        if SceneValueFuzzer.chance(&treeDraw, 0.3) {
            let tree = SceneValueFuzzer.busTree(&treeDraw, outside: outside, prefix: p)
            y += (hasBuses ? "" : "buses:\n") + tree.buses + tree.vcas
        }
        y += "sounds:\n"
        for s in 0..<(1 + Int(g.next() % 3)) {
            let select = SceneValueFuzzer.pick(&g, ["random", "shuffle", "sequence"])
            var m = "clips: [\(p)c0]"
            if maybe(0.5) { m += ", select: \(select)" }
            if maybe(0.4) { m += ", gain: \(maybe() ? n(-120...24) : "{ db: \(n(0...48)) }")" }
            if maybe(0.3) { m += ", pitch: { cents: \(n(0...2_400)) }" }
            if maybe(0.3) { m += ", limit: { count: \(n(1...1_024, whole: true)), steal: \(SceneValueFuzzer.pick(&g, ["oldest", "quietest", "refuse", "virtual"])) }" }
            if maybe(0.3) { m += ", cooldown: \(n(0...3_600))" }
            if maybe(0.3) { m += ", bus: \(SceneValueFuzzer.pick(&g, ["sfx", "ui", "music", "\(p)bus", "nobus", "mbus"]))" }   // mbus: the includer's
            if maybe(0.3) { m += ", priority: \(n(0...255, whole: true))" }
            if maybe(0.3) { m += ", loop: \(SceneValueFuzzer.pick(&g, ["true", "false"]))" }
            m += SceneValueFuzzer.distanceKeys(&g, outside: outside, p: 0.3)
            m += SceneValueFuzzer.imageKeys(&g, outside: outside, p: 0.2)   // spatial:, spread:
            y += "  \(p)s\(s): { \(m) }\n"
        }
        if hasParameter || maybe(0.05) {
            // A layered sound: layers' gain and pitch as numbers or curves, the sound's pitch curve.
            var layers: [String] = []
            for _ in 0..<(1 + Int(g.next() % 3)) {
                var l = "clip: \(p)c0"
                if maybe(0.6) { l += ", gain: \(maybe() ? curve(-144...24) : n(-120...24))" }
                if maybe(0.3) { l += ", pitch: \(maybe() ? curve(1.0 / 64...64) : n(1.0 / 64...64))" }
                if maybe(0.2) { l += ", lowPass: \(curve(0...1))" }
                layers.append("{ \(l) }")
            }
            y += "  \(p)layered: { loop: true, layers: [\(layers.joined(separator: ", "))]"
                + (maybe(0.4) ? ", pitch: \(curve(1.0 / 64...64))" : "") + (maybe(0.3) ? ", gain: \(n(-120...24))" : "") + " }\n"
        }
        if hasParameter, maybe(0.6) {   // a timeline and a switch (SceneValueFuzzer+Timeline.swift)
            y += SceneValueFuzzer.timelineSounds({ n($0, whole: $1) }, { g.nextUnit() }, clips: ["\(p)c0"], prefix: p)
        }
        if maybe(0.4) {
            y += "snapshots:\n  \(p)snap: { buses: { sfx: { gain: \(n(-120...24)), filter: { gain: \(n(0...1)), gainHF: \(n(0...1)) } } } }\n"
        }
        if maybe(0.3) {
            y += "zones:\n  \(p)z: { reverb: \(SceneValueFuzzer.pick(&g, ReverbProperties.presetNames)), "
                + "box: { center: \(SceneValueFuzzer.vector(&g, 10)), size: [\(n(0.01...100)), \(n(0.01...100)), \(n(0.01...100))] }, fade: \(n(0...100)) }\n"
        }
        if maybe(0.2) {
            y += "music:\n  \(p)m: { file: \(assets)/Music/\(SceneValueFuzzer.pick(&g, ["ambience.wav", "theme.ogg"])), volume: \(n(0...1)), loops: \(n(-1...3, whole: true)) }\n"
        }
        return y
    }

    /// One field of one file changed: a number replaced by another drawn for its range (or any
    /// value), a line dropped, or a sound added; now and then the file emptied (an editor's
    /// truncate-then-write seen half-way, which reload must refuse).
    func edit(_ g: inout SplitMix64, _ files: [(String, String)]) -> (String, String) {
        let (name, text) = files[Int(g.next() % UInt64(files.count))]
        if g.next() % 20 == 0 { return (name, "") }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let i = Int(g.next() % UInt64(max(lines.count, 1)))
        switch g.next() % 4 {
        case 0:
            if lines.indices.contains(i), lines.count > 2 { lines.remove(at: i) }
        case 1:
            lines.append("  added\(g.next() % 100): { clips: [\(name == "main.yaml" ? "m" : name.replacingOccurrences(of: ".yaml", with: ""))c0] }")
        default:
            guard lines.indices.contains(i) else { break }
            // Each number in the line may become another.
            let parts = lines[i].split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
                let trimmed = word.trimmingCharacters(in: CharacterSet(charactersIn: ",}]"))
                guard Double(trimmed) != nil, SceneValueFuzzer.chance(&g, 0.5) else { return String(word) }
                let replacement = SceneValueFuzzer.number(&g, -200...200, outside: true)
                return String(word).replacingOccurrences(of: trimmed, with: replacement)
            }
            lines[i] = parts.joined(separator: " ")
        }
        return (name, lines.joined(separator: "\n"))
    }
}
