import ArgumentParser
import Earshot
import EarshotStress
import Foundation

/// `earshot stress`: how many moving voices, at what cost against raw OpenAL.
///
/// The flags and the printing only: the workload, the baseline and the limit search are
/// EarshotStress's (``StressWorkload``, ``VoiceLimitSearch``), which count allocations through
/// the malloc interposer this executable links (``AllocationCounter/interposer``).
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

    @Option(
        name: .long, parsing: .unconditional,
        help: "Cap on real voices; the rest go virtual (default: enough for all, up to 4096).")
    var maxReal: Int?

    @Option(name: .long, parsing: .unconditional,
            help: "Listeners (split screen, 1…8; default 1): the others 40 m apart, every voice heard from its nearest.")
    var listeners: Int = 1

    @Flag(name: .long, help: "Render with HRTF.")
    var hrtf = false

    @Flag(name: .long, help: "Print one JSON object on stdout.")
    var json = false

    @Flag(name: .long, help: "Skip the raw-OpenAL baseline.")
    var noBaseline = false

    @Flag(
        name: .long,
        help:
            "Run only the raw-OpenAL baseline (as many sources as the engine would have real voices), for whole-process comparisons against a --no-baseline run."
    )
    var baselineOnly = false

    @Flag(
        name: .long,
        help:
            "Find the most real voices that mix within --budget of one core, for PCM, IMA4, HRTF and 1 and 2 reverb sends, engine and raw OpenAL, and print the table."
    )
    var findLimit = false

    @Option(
        name: .long, parsing: .unconditional,
        help: "With --find-limit: the CPU budget as a share of one core (default 0.5).")
    var budget: Double = 0.5

    @Option(name: .long, parsing: .unconditional, help: "With --find-limit: frames mixed per update (default 512).")
    var updateFrames: Int = 512

    @Option(name: .long, parsing: .unconditional, help: "With --find-limit: seconds rendered per probe (default 1.5).")
    var probeSeconds: Double = 1.5

    @Flag(
        name: .long,
        help:
            "Run twice, with 1 and then 2 reverb sends active per voice (the listener inside 1 and 2 reverb zones; the baseline with as many EFX slots), and report both."
    )
    var reverb = false

    @Flag(
        name: .long,
        help:
            "Call update() every frame without rendering (a game on a live device); no baseline. Reports update µs per voice."
    )
    var updateOnly = false

    @Flag(
        name: .long,
        help:
            "Play on the default output device (live, mixing in real time) and call update() at 60 Hz without rendering; no baseline."
    )
    var live = false

    @Flag(
        name: .long,
        help:
            "Measure what one play(sound) costs against play(clip) (time and heap allocations of the calls), in alternating rounds."
    )
    var playCost = false

    func validate() throws {
        if playCost { return }
        if baselineOnly, noBaseline || updateOnly || live || findLimit {
            throw ValidationError(
                "--baseline-only runs the baseline alone: not with --no-baseline, --update-only, --live or --find-limit"
            )
        }
        if findLimit {
            guard budget.isFinite, budget > 0, budget <= 1 else {
                throw ValidationError("--budget must be within 0…1 (a share of one core)")
            }
            guard (64...8_192).contains(updateFrames) else {
                throw ValidationError("--update-frames must be within 64…8192")
            }
            guard probeSeconds.isFinite, probeSeconds >= 0.2, probeSeconds <= 60 else {
                throw ValidationError("--probe-seconds must be within 0.2…60")
            }
            return
        }
        guard let voices else { throw ValidationError("--voices is required (or --find-limit)") }
        guard (1...1_000_000).contains(voices) else { throw ValidationError("--voices must be within 1…1000000") }
        guard (1...AudioEngine.maxListeners).contains(listeners) else { throw ValidationError("--listeners must be within 1…\(AudioEngine.maxListeners)") }
        guard seconds > 0, seconds <= 3_600 else { throw ValidationError("--seconds must be within 0…3600") }
        if let maxReal, !(1...4096).contains(maxReal) { throw ValidationError("--max-real must be within 1…4096") }
    }

    func run() throws {
        if findLimit { return try runFindLimit() }
        if playCost { return try runPlayCost() }
        let voices = self.voices ?? 1
        if baselineOnly { return try runBaselineOnly(voices: voices) }
        let sendCounts = reverb ? [1, 2] : [0]
        var reports: [StressReport] = []
        for sends in sendCounts {
            var workload = StressWorkload(voices: voices, seconds: seconds, maxReal: maxReal, hrtf: hrtf,
                                          reverbSends: sends, updateOnly: updateOnly || live, live: live)
            workload.listeners = listeners
            let showProgress = !json && isatty(2) != 0
            let result: StressResult
            do {
                result = try workload.run(withBaseline: !noBaseline, allocations: .interposer) { fraction in
                    if showProgress {
                        ProgressBar.draw(
                            fraction,
                            label: sends > 0 ? "rendering (\(sends) reverb send\(sends > 1 ? "s" : ""))" : "rendering")
                    }
                }
            } catch let error as EarshotError {
                fail(error.description)
            }
            if showProgress { ProgressBar.clear() }
            reports.append(StressReport(workload: workload, result: result))
        }
        if json {
            // One report; with --reverb, an object holding both, keyed by send count.
            if reverb {
                try sayJSON(encoding: ["sends1": reports[0], "sends2": reports[1]])
            } else {
                try sayJSON(encoding: reports[0])
            }
        } else {
            for (i, report) in reports.enumerated() {
                if i > 0 { print("") }
                print(report.table)
            }
        }
    }

    /// `--baseline-only`: the raw-OpenAL side alone; its CPU per rendered second on stdout.
    func runBaselineOnly(voices: Int) throws {
        let workload = StressWorkload(
            voices: voices, seconds: seconds, maxReal: maxReal, hrtf: hrtf, reverbSends: reverb ? 1 : 0)
        let result = try workload.runBaselineOnly()
        if json {
            return try sayJSON(encoding: [
                "sources": Double(result.sources), "cpuSeconds": result.cpuSeconds,
                "renderedSeconds": result.renderedSeconds,
            ])
        }
        print(
            String(
                format: "raw OpenAL: %d sources, %.3f s of CPU for %.1f s rendered (%.1f %% of one core)",
                result.sources, result.cpuSeconds, result.renderedSeconds,
                100 * result.cpuSeconds / result.renderedSeconds))
    }

    /// `--find-limit`: one search per row, the table (or JSON) on stdout, progress on stderr.
    func runFindLimit() throws {
        let search = VoiceLimitSearch(budget: budget, updateFrames: updateFrames, probeSeconds: probeSeconds)
        let report: LimitReport
        do {
            report = try search.report { probe in if !json { note("  \(probe)") } }
        } catch let error as EarshotError {
            fail(error.description)
        }
        if json { return try sayJSON(encoding: report) }
        print(report.markdown)
    }

    /// `--play-cost`: play(sound) against play(clip), and play into a full pool.
    func runPlayCost() throws {
        let report: PlayCostReport
        do {
            report = PlayCostReport(sound: try PlayCost().run(allocations: .interposer),
                                    whenFull: try PlayWhenFull().run(allocations: .interposer))
        } catch let error as EarshotError {
            fail(error.description)
        }
        if json { return try sayJSON(encoding: report) }
        printPlayCost(report.sound)
        print("play when full (each play evicts the lowest-standing virtual voice; 64 real voices):")
        for r in report.whenFull {
            print(
                String(
                    format: "  pool %5d + 64: %.0f ns per play, %d evictions in %d plays, %@ allocations", r.poolSize,
                    r.nanosecondsPerPlay, r.evictionsPerRound, r.plays, r.allocations.map(String.init) ?? "uncounted"))
        }
    }

    /// `--play-cost --json`: both parts in one object — `single` and `four` (``PlayCost/Report``), and
    /// `whenFull`, one entry per pool size.
    struct PlayCostReport: Encodable {
        var sound: PlayCost.Report
        var whenFull: [PlayWhenFull.Result]

        enum CodingKeys: String, CodingKey { case single, four, whenFull }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(sound.single, forKey: .single)
            try c.encode(sound.four, forKey: .four)
            try c.encode(whenFull, forKey: .whenFull)
        }
    }

    private func printPlayCost(_ report: PlayCost.Report) {
        for (name, result) in [("one clip", report.single), ("four clips", report.four)] {
            print(
                "\(name) (the sound: random, ±50 cents, ±2 dB, a limit\(name == "four clips" ? ", avoidRepeat 1" : "")):"
            )
            print(
                String(
                    format: "  play(clip):  %.0f ns per call, %@ allocations in %d calls", result.clipNanoseconds,
                    result.clipAllocations.map(String.init) ?? "uncounted", result.plays))
            print(
                String(
                    format: "  play(sound): %.0f ns per call, %@ allocations in %d calls", result.soundNanoseconds,
                    result.soundAllocations.map(String.init) ?? "uncounted", result.plays))
            print(String(format: "  ratio:       %.2f (sound / clip)", result.soundOverClip))
        }
    }
}
