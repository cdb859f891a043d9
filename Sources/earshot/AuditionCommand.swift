import ArgumentParser
import Earshot
import EarshotBanks
import EarshotOutputs
import EarshotScenes
import Foundation

/// `earshot audition BANK SOUND`: one sound of a bank, heard alone, while parameters sweep —
/// a designer hears a curve without a game.
struct AuditionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audition",
        abstract: "Play or render one sound (or layered sound) of a bank while sweeping game parameters.",
        discussion: """
            Loads BANK (with the banks it includes) and plays SOUND centred, again each time a \
            one-shot ends, for --seconds. Each --param NAME=FROM:TO:SECONDS sets the global \
            parameter NAME to FROM at the start and moves it to TO over SECONDS (linearly, in \
            playback time); give it once per parameter. A sweep past the parameter's range is \
            clamped to it (the engine holds a parameter within its range), and says so on stderr \
            in one line. With -o (or --out) the audition is rendered offline \
            (48 kHz stereo) to OUT.wav, and with --plot its level to OUT.svg; both appear only \
            when complete, and nothing is written on a failure. Without -o it plays live on the \
            default output. A bad bank, an unknown sound or parameter prints \
            `earshot: FILE:LINE:COLUMN: key: reason` (or the nearest name) and exits 1.

            --every SECONDS plays the sound again every SECONDS (to the frame) instead of when \
            it ends, --count N at most N times in all; --set NAME=VALUE sets a parameter at the \
            start, by label for a labelled one (--set surface=wood; repeatable); --release \
            SECONDS releases the voice's sustain point then (a timeline sound's tail). SOUND may \
            name a music set of the bank: it plays, and each --state NAME@SECONDS moves it to \
            state NAME at SECONDS by its transition rules (the first state at 0 unless one is \
            given for 0).
            """)

    @Argument(help: "The bank file (.yaml).")
    var bank: String

    @Argument(help: "The sound to play.")
    var sound: String

    @Option(name: .customLong("param"), parsing: .unconditionalSingleValue,
            help: "A parameter sweep NAME=FROM:TO:SECONDS (e.g. rpm=800:8000:10); repeatable.")
    var params: [String] = []

    // Unconditional: `--seconds -1` is a bad value to name, not a missing one.
    @Option(
        name: .long, parsing: .unconditional,
        help: "Seconds to play or render (default: the longest sweep, at least 3).")
    var seconds: Double?

    @Option(
        name: [.customShort("o"), .customLong("out")],
        help: "Render offline to this audio file instead of playing live.")
    var o: String?

    @Option(name: .long, help: "With -o: write the level plot (SVG) here too.")
    var plot: String?

    @Option(name: .long, parsing: .unconditional, help: "Play the sound again every SECONDS (0.01…3600).")
    var every: Double?

    @Option(name: .long, parsing: .unconditional, help: "Play the sound at most N times (1…100000).")
    var count: Int?

    @Option(name: .customLong("set"), parsing: .unconditionalSingleValue,
            help: "A parameter set at the start, NAME=VALUE (a label or a number); repeatable.")
    var sets: [String] = []

    @Option(name: .customLong("state"), parsing: .unconditionalSingleValue,
            help: "A music set's state change, NAME@SECONDS (e.g. combat@4); repeatable.")
    var states: [String] = []

    @Option(name: .long, parsing: .unconditional, help: "Release the voice's sustain point at SECONDS.")
    var release: Double?

    /// One `--param`.
    struct Sweep: Equatable {
        var name: String
        var from: Double
        var to: Double
        var seconds: Double

        /// `NAME=FROM:TO:SECONDS`; nil with the reason when it is not that.
        static func parse(_ text: String) -> Result<Sweep, ValidationError> {
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                return .failure(
                    ValidationError("--param \(text): expected NAME=FROM:TO:SECONDS (e.g. rpm=800:8000:10)"))
            }
            let numbers = parts[1].split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
            guard numbers.count == 3, let from = numbers[0], let to = numbers[1], let s = numbers[2],
                from.isFinite, to.isFinite, s.isFinite, (0...3600).contains(s)
            else {
                return .failure(
                    ValidationError("--param \(text): expected NAME=FROM:TO:SECONDS, finite numbers, SECONDS 0…3600"))
            }
            return .success(Sweep(name: parts[0], from: from, to: to, seconds: s))
        }
    }

    func validate() throws {
        for p in params { _ = try Sweep.parse(p).get() }
        if let seconds, !(seconds.isFinite && seconds > 0) {
            throw ValidationError("--seconds \(Self.f(seconds)): must be positive (0.01…3600 seconds)")
        }
        if let seconds, !(0.01...3600).contains(seconds) {
            throw ValidationError("--seconds \(Self.f(seconds)): must be 0.01…3600 seconds")
        }
        if plot != nil, o == nil { throw ValidationError("--plot needs -o (the plot is of an offline render)") }
        try validateCues()   // AuditionCommand+Cues.swift
    }

    func run() throws {
        let sweeps = params.compactMap { try? Sweep.parse($0).get() }
        let duration = seconds ?? max(3, sweeps.map(\.seconds).max() ?? 0, cueSpan)
        guard let out = o else { return try live(sweeps, duration) }
        // Before any work: the outputs can be written, over no input.
        do throws(EarshotError) { _ = try AudioFileWriter.Container.forPath(out) } catch { fail(error.cliDescription) }
        var inputs = [bank]
        if let b = try? SceneBank.load(path: bank) {
            inputs += b.includedFiles + b.clips.map(\.path) + b.music.map(\.path)
        }
        OutputGuard.refuseOverwriting([out] + (plot.map { [$0] } ?? []), inputs: inputs)
        for path in [out] + (plot.map { [$0] } ?? []) {
            OutputGuard.requireWritableFolder(path)
            if let problem = OutputGuard.notAFileProblem(path) { fail(problem) }
        }
        OutputGuard.removePartialOutputOnInterrupt()
        let engine: AudioEngine
        do { engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000))) } catch {
            fail(error.cliDescription)
        }
        defer { engine.shutdown() }
        let loaded = load(engine)
        noteClamped(sweeps, loaded)
        let outputs = OutputTransaction()
        var levels = LevelTrace(sampleRate: 48_000, channels: 2)
        do {
            let writer = try AudioFileWriter(
                path: out, sampleRate: 48_000, channels: 2, expectedFrames: Int(duration * 48_000),
                transaction: outputs)
            let total = Int((duration * 48_000).rounded())
            var voice: Voice?
            try start(sweeps, engine)
            var cues = try makeCues(loaded)
            var done = 0
            while done < total {
                let n = min(800, total - done)   // one game frame at 60 Hz
                try cue(&cues, &voice, now: Double(done) / 48_000, span: Double(n) / 48_000, loaded)
                engine.update(deltaTime: Double(n) / 48_000)
                let block = try engine.render(frames: n)
                block.withUnsafeBufferPointer { levels.add($0) }
                try writer.write(block)
                done += n
            }
            try writer.close()
            levels.finish()
            if let plot {
                let title =
                    "\(sound) of \(bank)"
                    + sweeps.map { " — \($0.name) \(Self.f($0.from))→\(Self.f($0.to)) in \(Self.f($0.seconds)) s" }
                    .joined()
                try outputs.write(
                    Array(LevelPlot.svg(levels: levels, events: [], title: title, duration: duration).utf8), to: plot)
            }
            try outputs.commit()
        } catch let error as EarshotError {
            outputs.rollback()
            fail(error.cliDescription + " (nothing written)")
        } catch let error as BankError {
            outputs.rollback()
            fail(error.description + " (nothing written)")
        }
        loaded.unload()
        note("earshot: wrote \(out) (\(Self.f(duration)) s of \(sound))" + (plot.map { "; plot \($0)" } ?? ""))
    }

    /// The bank loaded into `engine`, the sound checked; exits 1 with the problem otherwise.
    func load(_ engine: AudioEngine) -> SoundBank {
        do throws(BankError) {
            let b = try SoundBank(path: bank, engine: engine)
            if !b.musicSetNames.contains(sound) { _ = try b.sound(sound) }   // a sound, or a music set
            return b
        } catch {
            if case .invalid(let problems) = error, let last = problems.last {
                for p in problems.dropLast() { note("earshot: \(p.description)") }
                fail(last.description)
            }
            fail(error.description)
        }
    }

    /// Says, one line each, which sweeps go past their parameter's range: the engine holds a
    /// parameter within it, so the sweep heard is the clamped one.
    func noteClamped(_ sweeps: [Sweep], _ bank: SoundBank) {
        let ranges = Dictionary(
            (bank.definition?.parameters ?? []).map { ($0.id, $0.range) }, uniquingKeysWith: { a, _ in a })
        for s in sweeps {
            guard let r = ranges[s.name], !r.contains(s.from) || !r.contains(s.to) else { continue }
            let from = min(max(s.from, r.lowerBound), r.upperBound), to = min(max(s.to, r.lowerBound), r.upperBound)
            note(
                "earshot: --param \(s.name): asked \(Self.f(s.from))→\(Self.f(s.to)), clamped to \(Self.f(from))→\(Self.f(to)) "
                    + "(\(s.name)'s range is \(Self.f(r.lowerBound))…\(Self.f(r.upperBound)))")
        }
    }

    /// Sets each swept parameter to where it starts, then on its way to where it ends.
    func start(_ sweeps: [Sweep], _ engine: AudioEngine) throws {
        for s in sweeps {
            try engine.setParameter(s.name, s.from, ramp: 0)
            try engine.setParameter(s.name, s.to, ramp: s.seconds)
        }
    }

    func live(_ sweeps: [Sweep], _ duration: Double) throws {
        let engine: AudioEngine
        do { engine = try AudioEngine() } catch { fail(error.cliDescription(outFlag: "-o")) }
        defer { engine.shutdown() }
        let loaded = load(engine)
        noteClamped(sweeps, loaded)
        do {
            try start(sweeps, engine)
            var voice: Voice?
            var cues = try makeCues(loaded)
            try FrameLoop(engine: engine).runLive(seconds: duration) { t in
                try cue(&cues, &voice, now: t, span: 1.0 / 60, loaded)
                return true
            }
            cues.music?.stop(fade: 0.05)
            voice?.stop(fade: 0.05)
            usleep(80_000)
        } catch let error as EarshotError {
            fail(error.cliDescription)
        } catch let error as BankError {
            fail(error.description)
        }
        loaded.unload()
    }

    static func f(_ v: Double) -> String { v.rounded() == v && abs(v) < 1e9 ? String(Int(v)) : String(format: "%g", v) }
}
