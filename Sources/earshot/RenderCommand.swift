import ArgumentParser
import Earshot
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

    @Option(name: [.customShort("o"), .long], help: "The audio file to write: .wav (RF64 past 4 GiB), .rf64, .w64, .caf, .aiff, .flac or .ogg.")
    var out: String

    @Option(name: .long, help: "Sample format: s16 (16-bit PCM) or f32 (32-bit float).")
    var format: String = "s16"

    @Option(name: .long, help: "Also write a level plot (20 ms RMS per channel in dBFS, events marked) as SVG.")
    var plot: String?

    @Option(name: .long, parsing: .unconditional, help: "Render only the first S seconds (at most the scene's duration).")
    var duration: Double?

    @Flag(name: .long, help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        if AudioFileWriter.Format(rawValue: format) == nil { throw ValidationError("--format takes s16 or f32") }
        if let duration, !(duration.isFinite && duration > 0 && duration <= FrameLoop.maxSeconds) {
            throw ValidationError("--duration must be more than 0 and at most \(Int(FrameLoop.maxSeconds)) seconds")
        }
    }

    func run() throws {
        let loaded = SceneDescription.load(scene)
        // Before any work: the outputs can be written, in containers libsndfile writes, over no input.
        do throws(EarshotError) { _ = try AudioFileWriter.Container.forPath(out) } catch { fail(error) }
        OutputGuard.refuseOverwriting([out] + (plot.map { [$0] } ?? []),
                                      inputs: [scene] + loaded.clips.map(\.path) + loaded.music.map(\.path))
        OutputGuard.requireWritableFolder(out)
        if let plot { OutputGuard.requireWritableFolder(plot) }
        OutputGuard.removePartialOutputOnInterrupt()
        let progress = (!quiet && isatty(2) != 0) ? ThrottledProgress(label: loaded.name) : nil
        let result: SceneRenderer.Result
        do {
            result = try SceneRenderer(scene: loaded).render(
                to: out, format: AudioFileWriter.Format(rawValue: format) ?? .s16, duration: duration,
                progress: progress.map { bar in { bar.update($0) } })
        } catch {
            progress?.finish()
            fail(error)
        }
        progress?.finish()
        if let plot {
            let svg = LevelPlot.svg(levels: result.levels, events: loaded.events.filter { $0.time <= result.duration },
                                    title: loaded.name, duration: result.duration, timeline: result.timeline, scene: loaded)
            do {
                try svg.write(toFile: plot, atomically: true, encoding: .utf8)
            } catch {
                fail("\(plot): cannot write: \(error.localizedDescription)")
            }
        }
        if !quiet {
            let speed = result.renderSeconds > 0 ? result.duration / result.renderSeconds : 0
            note("earshot: wrote \(out) (\(result.frames) frames, \(result.sampleRate) Hz, \(result.channels) channels, "
                 + String(format: "%.2f s) in %.2f s, %.0f× real time", result.duration, result.renderSeconds, speed)
                 + (plot.map { "; plot \($0)" } ?? ""))
        }
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
