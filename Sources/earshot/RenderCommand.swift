import ArgumentParser
import Earshot
import EarshotOutputs
import EarshotScenes
import Foundation

/// `earshot render SCENE -o OUT.wav`: a scene rendered offline through loopback, with an optional
/// level plot.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a scene (YAML) offline to a WAV file, faster than real time.",
        discussion: """
            The scene is validated first (nothing is written for an invalid scene), then mixed \
            through OpenAL's loopback device in 60 Hz game frames with sample-accurate events. \
            A progress bar is drawn on stderr when it is a terminal. The scene format is \
            described in Demos/Scenes/README.md.
            """)

    @Argument(help: "The scene file (.yaml).")
    var scene: String

    @Option(
        name: [.customShort("o"), .long],
        help: "The audio file to write: .wav (RF64 past 4 GiB), .rf64, .w64, .caf, .aiff, .flac or .ogg.")
    var out: String

    @Option(name: .long, help: "Sample format: s16 (16-bit PCM) or f32 (32-bit float).")
    var format: String = "s16"

    @Option(name: .long, help: "Also write a level plot (20 ms RMS per channel in dBFS, events marked) as SVG.")
    var plot: String?

    @Option(
        name: .long, parsing: .unconditional, help: "Render only the first S seconds (at most the scene's duration).")
    var duration: Double?

    @Option(
        name: .long, parsing: .unconditional,
        help:
            "Write the section from S seconds on (what comes before runs silently, so the section sounds as in the whole render)."
    )
    var from: Double?

    @Option(name: .long, parsing: .unconditional, help: "End the section at S seconds (the same as --duration).")
    var to: Double?

    @Flag(
        name: .long,
        help:
            "Keep watching: render again (and plot again) whenever the scene file, a bank it includes or one of its audio files changes; Ctrl-C ends."
    )
    var watch = false

    @Flag(name: .long, help: "Print nothing but errors.")
    var quiet = false

    @Option(name: .long, help: "Also write what the scene's say: lines showed as subtitles (.srt or .vtt).")
    var subtitles: String?

    // Loudness (RenderCommand+Loudness.swift).
    @Option(name: .long, parsing: .unconditional, help: "Exit 1 with one line when the render's integrated loudness misses LUFS (by more than --loudness-tolerance).")
    var loudnessTarget: Double?

    @Option(name: .long, parsing: .unconditional, help: "With --loudness-target: LU either side of it that still meet it (default 1).")
    var loudnessTolerance: Double = 1

    @Option(name: .long, parsing: .unconditional, help: "With --loudness-target: exit 1 too when the true peak is over dBTP.")
    var truePeak: Double?

    func validate() throws {
        if AudioFileWriter.Format(rawValue: format) == nil { throw ValidationError("--format takes s16 or f32") }
        if let duration, !(duration.isFinite && duration > 0 && duration <= FrameLoop.maxSeconds) {
            throw ValidationError("--duration must be more than 0 and at most \(Int(FrameLoop.maxSeconds)) seconds")
        }
        if duration != nil, to != nil { throw ValidationError("--to and --duration say the same; give one") }
        if let to, !(to.isFinite && to > 0 && to <= FrameLoop.maxSeconds) {
            throw ValidationError("--to must be more than 0 and at most \(Int(FrameLoop.maxSeconds)) seconds")
        }
        if let from, !(from.isFinite && from >= 0) { throw ValidationError("--from must be 0 or more seconds") }
        if let from, let end = to ?? duration, from >= end { throw ValidationError("--from must come before --to") }
        try validateLoudness()
        if let problem = validateSubtitles() { throw ValidationError(problem) }   // RenderCommand+Subtitles.swift
    }

    func run() throws {
        guard watch else {
            _ = renderOnce(SceneDescription.load(scene), exitOnFailure: true)
            return
        }
        // Watch: render now, then again whenever the scene or one of its files changes.
        OutputGuard.removePartialOutputOnInterrupt()
        var watched = [scene]
        var last: [String] = []
        while true {
            let now = watched.map(Self.stamp)
            if now != last {
                last = now
                switch Scene.check(path: scene) {
                case .success(let loaded):
                    watched = [scene] + loaded.includedFiles + loaded.clips.map(\.path) + loaded.music.map(\.path)
                    last = watched.map(Self.stamp)
                    if renderOnce(loaded, exitOnFailure: false), !quiet {
                        note(
                            "earshot: watching \(scene) and its \(watched.count - 1) included and audio files (Ctrl-C ends)"
                        )
                    }
                case .failure(let problems):
                    // The first problem (an included bank's before the scene's) is the one to fix:
                    // what follows from it would only mislead.
                    if let first = problems.first { note("earshot: \(first.description)") }
                    // The files with problems are watched too: fixing a broken included bank renders again.
                    for case .invalid(let file, _, _, _, _) in problems.problems where !watched.contains(file) {
                        watched.append(file)
                    }
                    last = watched.map(Self.stamp)
                    let more = problems.problems.count - 1
                    note(
                        "earshot: not rendered"
                            + (more > 0
                                ? " (\(more) more problem\(more == 1 ? "" : "s"): earshot validate \(scene) lists them)"
                                : "")
                            + "; watching \(scene) for the next change")
                }
            }
            usleep(300_000)
        }
    }

    /// What changes when a file is saved: its modification time and size ("-" when it is gone).
    static func stamp(_ path: String) -> String {
        guard let a = try? FileManager.default.attributesOfItem(atPath: path) else { return "-" }
        let date = (a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return "\(date) \(a[.size] as? Int ?? -1)"
    }

    /// Renders (and plots) once; false after a failure, which exits 1 unless watching.
    @discardableResult
    func renderOnce(_ loaded: Scene, exitOnFailure: Bool) -> Bool {
        func failed(_ message: String) -> Bool {
            if exitOnFailure { fail(message) }
            note("earshot: " + message)
            return false
        }
        // Before any work: the outputs can be written, in containers libsndfile writes, over no input.
        do throws(EarshotError) { _ = try AudioFileWriter.Container.forPath(out) } catch {
            return failed(error.cliDescription)
        }
        OutputGuard.refuseOverwriting(
            [out] + extraOutputs,
            inputs: [scene] + loaded.clips.map(\.path) + loaded.music.map(\.path))
        OutputGuard.requireWritableFolder(out)
        for path in extraOutputs { OutputGuard.requireWritableFolder(path) }
        for path in [out] + extraOutputs {
            if let problem = OutputGuard.notAFileProblem(path) { return failed(problem) }
        }
        OutputGuard.removePartialOutputOnInterrupt()
        // One transaction: the WAV and the plot appear together, and only when both are complete.
        let outputs = OutputTransaction()
        let progress = (!quiet && isatty(2) != 0) ? ThrottledProgress(label: loaded.name) : nil
        let result: SceneRenderer.Result
        do {
            result = try SceneRenderer(scene: loaded).render(
                to: out, format: AudioFileWriter.Format(rawValue: format) ?? .s16, from: from ?? 0,
                duration: to ?? duration,
                transaction: outputs, progress: progress.map { bar in { bar.update($0) } })
        } catch {
            progress?.finish()
            return failed(error.cliDescription)
        }
        progress?.finish()
        if let plot {
            // A section's plot reads the scene's clock: its axes, parameter lanes and map show that stretch.
            let svg = LevelPlot.svg(
                levels: result.levels, events: result.events,
                title: loaded.name + (from.map { " from \(SceneDescription.seconds($0)) s" } ?? ""),
                duration: result.duration, timeline: result.timeline, scene: loaded, start: from ?? 0,
                loudness: result.loudnessTrace, loudnessTarget: loudnessTarget)
            do throws(EarshotError) {
                try outputs.write(Array(svg.utf8), to: plot)
            } catch {
                outputs.rollback()
                return failed(error.cliDescription + " (nothing written)")
            }
        }
        do throws(EarshotError) {
            try writeSubtitles(result, outputs)   // RenderCommand+Subtitles.swift
        } catch {
            outputs.rollback()
            return failed(error.cliDescription + " (nothing written)")
        }
        do throws(EarshotError) {
            try outputs.commit()
        } catch {
            return failed(error.cliDescription + " (nothing written)")
        }
        if !quiet {
            let speed = result.renderSeconds > 0 ? result.duration / result.renderSeconds : 0
            note(
                "earshot: wrote \(out) (\(result.frames) frames, \(result.sampleRate) Hz, \(result.channels) channels, "
                    + String(format: "%.2f s) in %.2f s, %.0f× real time", result.duration, result.renderSeconds, speed)
                    + (plot.map { "; plot \($0)" } ?? "") + (subtitles.map { "; subtitles \($0)" } ?? ""))
            if result.limitedSeconds > 0 {
                note(
                    String(
                        format:
                            "earshot: the output limiter worked for %.2f s (%.1f %% of the render), at most %.1f dB of gain reduction: the mix exceeded full scale",
                        result.limitedSeconds, 100 * result.limitedSeconds / max(result.duration, 1e-9),
                        result.deepestLimiterReduction))
            }
            if let loudness = result.loudness { note(Self.loudnessLine(loudness)) }
        }
        if let loudness = result.loudness, let miss = loudnessMiss(loudness) { return failed(miss) }
        return true
    }

}

/// The stress command's ``ProgressBar``, redrawn at most 20 times a second.
final class ThrottledProgress {
    let label: String
    private var last = Date.distantPast
    private var drawn = false

    init(label: String) { self.label = label }

    func update(_ fraction: Double) {
        let now = Date()
        guard fraction >= 1 || now.timeIntervalSince(last) >= 0.05 else { return }
        last = now
        ProgressBar.draw(min(max(fraction, 0), 1), label: label)
        drawn = true
    }

    func finish() {
        if drawn { ProgressBar.clear() }
        drawn = false
    }
}
