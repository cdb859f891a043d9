import ArgumentParser
import CAllocCounter
import Earshot
import Foundation

/// `earshot stress`: how many moving voices, at what cost against raw OpenAL.
struct StressCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stress",
        abstract: "Render N moving looping voices offline and compare the cost with raw OpenAL.",
        discussion: """
            Each voice loops a 1 s 440 Hz tone on its own emitter circling the listener at 5 m; \
            positions change every frame at 60 Hz; the mix is 48 kHz stereo float through the \
            loopback device. The same workload is done with raw OpenAL calls only \
            (as many sources as the engine has real voices), frame by frame beside the engine, \
            each frame's CPU time measured for each: overheadRatio = engine CPU / baseline CPU. Build with -c release for figures that mean anything.
            """)

    @Option(name: .long, parsing: .unconditional, help: "Voices (emitters) to play (required unless --find-limit).")
    var voices: Int?

    @Option(name: .long, parsing: .unconditional, help: "Seconds of audio to render (default 10).")
    var seconds: Double = 10

    @Option(name: .long, parsing: .unconditional, help: "Cap on real voices; the rest go virtual (default: enough for all, up to 4096).")
    var maxReal: Int?

    @Flag(name: .long, help: "Render with HRTF.")
    var hrtf = false

    @Flag(name: .long, help: "Print one JSON object on stdout.")
    var json = false

    @Flag(name: .long, help: "Skip the raw-OpenAL baseline.")
    var noBaseline = false

    @Flag(name: .long, help: "Find the most real voices that mix within --budget of one core, for PCM, IMA4, HRTF and 1 and 2 reverb sends, engine and raw OpenAL, and print the table.")
    var findLimit = false

    @Option(name: .long, parsing: .unconditional, help: "With --find-limit: the CPU budget as a share of one core (default 0.5).")
    var budget: Double = 0.5

    @Option(name: .long, parsing: .unconditional, help: "With --find-limit: frames mixed per update (default 512).")
    var updateFrames: Int = 512

    @Option(name: .long, parsing: .unconditional, help: "With --find-limit: seconds rendered per probe (default 1.5).")
    var probeSeconds: Double = 1.5

    @Flag(name: .long, help: "Run twice, with 1 and then 2 reverb sends active per voice (the listener inside 1 and 2 reverb zones; the baseline with as many EFX slots), and report both.")
    var reverb = false

    @Flag(name: .long, help: "Call update() every frame without rendering (a game on a live device); no baseline. Reports update µs per voice.")
    var updateOnly = false

    @Flag(name: .long, help: "Play on the default output device (live, mixing in real time) and call update() at 60 Hz without rendering; no baseline.")
    var live = false

    func validate() throws {
        if findLimit {
            guard budget.isFinite, budget > 0, budget <= 1 else { throw ValidationError("--budget must be within 0…1 (a share of one core)") }
            guard (64...8_192).contains(updateFrames) else { throw ValidationError("--update-frames must be within 64…8192") }
            guard probeSeconds.isFinite, probeSeconds >= 0.2, probeSeconds <= 60 else { throw ValidationError("--probe-seconds must be within 0.2…60") }
            return
        }
        guard let voices else { throw ValidationError("--voices is required (or --find-limit)") }
        guard (1...1_000_000).contains(voices) else { throw ValidationError("--voices must be within 1…1000000") }
        guard seconds > 0, seconds <= 3_600 else { throw ValidationError("--seconds must be within 0…3600") }
        if let maxReal, !(1...4096).contains(maxReal) { throw ValidationError("--max-real must be within 1…4096") }
    }

    func run() throws {
        if findLimit { return try runFindLimit() }
        let voices = self.voices ?? 1
        let sendCounts = reverb ? [1, 2] : [0]
        var reports: [StressReport] = []
        for sends in sendCounts {
            var workload = StressWorkload(voices: voices, seconds: seconds, maxReal: maxReal, hrtf: hrtf)
            workload.reverbSends = sends
            workload.updateOnly = updateOnly || live
            workload.live = live
            let showProgress = !json && isatty(2) != 0
            let engine: StressWorkload.EngineResult
            let baseline: StressWorkload.BaselineResult?
            do {
                (engine, baseline) = try workload.run(withBaseline: !noBaseline) { fraction in
                    if showProgress { ProgressBar.draw(fraction, label: sends > 0 ? "rendering (\(sends) reverb send\(sends > 1 ? "s" : ""))" : "rendering") }
                }
            } catch let error as EarshotError {
                fail(error.description)
            }
            if showProgress { ProgressBar.clear() }
            var report = StressReport(engine: engine, baseline: baseline, hrtf: hrtf,
                                      allocationCounterActive: earshot_alloc_counter_active() != 0)
            report.reverbSends = sends
            reports.append(report)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            // One report as before; with --reverb, an object holding both.
            let data = reverb ? try encoder.encode(["sends1": reports[0], "sends2": reports[1]]) : try encoder.encode(reports[0])
            print(String(decoding: data, as: UTF8.self))
        } else {
            for (i, report) in reports.enumerated() {
                if i > 0 { print("") }
                report.printTable()
            }
        }
    }
}

extension StressCommand {
    /// `--find-limit`: one search per row, the table (or JSON) on stdout, progress on stderr.
    func runFindLimit() throws {
        let search = VoiceLimitSearch(budget: budget, updateFrames: updateFrames, probeSeconds: probeSeconds)
        var rows: [VoiceLimitSearch.Row] = []
        do {
            for kind in VoiceLimitSearch.Kind.allCases {
                rows.append(try search.run(kind) { line in if !json { note("  " + line) } })
            }
        } catch let error as EarshotError {
            fail(error.description)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let report = LimitReport(budget: budget, updateFrames: updateFrames, sampleRate: StressWorkload.rate, rows: rows)
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        print(LimitReport(budget: budget, updateFrames: updateFrames, sampleRate: StressWorkload.rate, rows: rows).markdown)
    }
}

/// What `earshot stress --find-limit` prints.
struct LimitReport: Codable {
    var budget: Double
    var updateFrames: Int
    var sampleRate: Int
    var rows: [VoiceLimitSearch.Row]

    /// A Markdown table, as Benchmarks/README.md publishes it.
    var markdown: String {
        var lines = [
            "Real voices mixed within \(Int((budget * 100).rounded())) % of one core at \(sampleRate / 1000) kHz stereo, \(updateFrames)-frame updates:",
            "",
            "| voices | Earshot | raw OpenAL | Earshot / raw |",
            "|---|---|---|---|",
        ]
        for r in rows {
            let ratio = r.rawOpenALVoices > 0 ? String(format: "%.2f", Double(r.engineVoices) / Double(r.rawOpenALVoices)) : "–"
            lines.append("| \(r.label) | \(r.engineVoices) | \(r.rawOpenALVoices) | \(ratio) |")
        }
        return lines.joined(separator: "\n")
    }
}

/// What `earshot stress --json` prints.
struct StressReport: Encodable {
    struct Quantiles: Encodable {
        var p50: Double, p99: Double, max: Double

        init(_ samples: [Double]) {
            p50 = samples.quantile(0.5)
            p99 = samples.quantile(0.99)
            max = samples.max() ?? 0
        }
    }
    struct Baseline: Encodable {
        var sources: Int
        var cpuSeconds: Double
        var realtimeFactor: Double
        /// Raw `alSourcePlay`, timed like the engine's `play` (compare with `playMicros`).
        var playMicros: Quantiles
    }
    var voices: Int
    var realVoices: Int
    var virtualVoices: Int
    var grantedSources: Int
    var hrtf: Bool
    var renderedSeconds: Double
    var cpuSeconds: Double
    /// Rendered seconds per CPU second (above 1 = faster than real time).
    var realtimeFactor: Double
    /// `engine.update()` alone, per frame.
    var updateMicros: Quantiles
    /// `engine.update()` per frame divided by the voices (p50 and p99 of the frame cost, in ns).
    var updateNanosPerVoice: Quantiles
    /// Computing and setting every emitter's position (one `batch`), per frame.
    var moveMicros: Quantiles
    var allocationsPerFrame: Double
    var playMicros: Quantiles
    var playAllocationsPerCall: Double
    var steals: Int
    var baseline: Baseline?
    var overheadRatio: Double?
    var allocationCounterActive: Bool
    /// Reverb sends active per voice (0 without `--reverb`).
    var reverbSends = 0

    init(engine e: StressWorkload.EngineResult, baseline b: StressWorkload.BaselineResult?, hrtf: Bool,
         allocationCounterActive: Bool) {
        voices = e.voices
        realVoices = e.realVoices
        virtualVoices = e.virtualVoices
        grantedSources = e.grantedSources
        self.hrtf = hrtf
        renderedSeconds = e.renderedSeconds
        cpuSeconds = e.cpuSeconds
        realtimeFactor = e.cpuSeconds > 0 ? e.renderedSeconds / e.cpuSeconds : 0
        updateMicros = Quantiles(e.updateMicros)
        updateNanosPerVoice = Quantiles(e.updateMicros.map { $0 * 1000 / Double(max(e.voices, 1)) })
        moveMicros = Quantiles(e.moveMicros)
        allocationsPerFrame = e.allocationsPerFrame
        playMicros = Quantiles(e.playMicros)
        playAllocationsPerCall = Double(e.playAllocations) / Double(max(e.voices, 1))
        steals = e.steals
        if let b {
            baseline = Baseline(sources: b.sources, cpuSeconds: b.cpuSeconds,
                                realtimeFactor: b.cpuSeconds > 0 ? b.renderedSeconds / b.cpuSeconds : 0,
                                playMicros: Quantiles(b.playMicros))
            overheadRatio = b.cpuSeconds > 0 ? e.cpuSeconds / b.cpuSeconds : nil
        }
        self.allocationCounterActive = allocationCounterActive
    }

    func printTable() {
        func f(_ x: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", x) }
        var rows: [(String, String)] = [
            ("voices", "\(voices)" + (reverbSends > 0 ? " (\(reverbSends) reverb send\(reverbSends > 1 ? "s" : "") each)" : "")),
            ("real / virtual", "\(realVoices) / \(virtualVoices) (sources granted: \(grantedSources))"),
            ("rendered", "\(f(renderedSeconds)) s in \(f(cpuSeconds, 3)) s CPU — \(f(realtimeFactor))× real time"),
            ("update µs p50 / p99 / max", "\(f(updateMicros.p50, 1)) / \(f(updateMicros.p99, 1)) / \(f(updateMicros.max, 1))"),
            ("update ns per voice p50 / p99", "\(f(updateNanosPerVoice.p50, 1)) / \(f(updateNanosPerVoice.p99, 1))"),
            ("move emitters µs p50 / p99", "\(f(moveMicros.p50, 1)) / \(f(moveMicros.p99, 1)) (positions computed and set in one batch)"),
            ("allocations per frame", allocationCounterActive ? f(allocationsPerFrame, 3) : "not measured"),
            ("play µs p50 / p99", "\(f(playMicros.p50, 2)) / \(f(playMicros.p99, 2)) (\(f(playAllocationsPerCall, 3)) allocations per call)"),
        ]
        if let baseline, let overheadRatio {
            rows.append(("raw OpenAL baseline", "\(baseline.sources) sources, \(f(baseline.cpuSeconds, 3)) s CPU — \(f(baseline.realtimeFactor))× real time"))
            rows.append(("raw alSourcePlay µs p50 / p99", "\(f(baseline.playMicros.p50, 2)) / \(f(baseline.playMicros.p99, 2))"))
            rows.append(("overhead ratio", "\(f(overheadRatio, 3)) (engine CPU / baseline CPU)"))
        }
        let width = rows.map(\.0.count).max() ?? 0
        for (k, v) in rows {
            print(k.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + v)
        }
    }
}

/// A one-line progress bar on stderr (only when stderr is a terminal).
enum ProgressBar {
    static func draw(_ fraction: Double, label: String) {
        let width = 30
        let filled = Int((fraction * Double(width)).rounded())
        note("\r\(label) [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] \(Int(fraction * 100))%", newline: false)
    }

    static func clear() { note("\r" + String(repeating: " ", count: 60) + "\r", newline: false) }
}
