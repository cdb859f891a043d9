import ArgumentParser
import Earshot
import EarshotScenes
import Foundation

/// `earshot play FILE`: a clip at a position, or a scene (`.yaml`), live or rendered offline.
struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play an audio file or a scene (.yaml) live, or render it offline with --out.",
        discussion: """
            The listener stands at the origin facing -z with +y up: --at 3,0,0 places the sound \
            3 m to the right. Without an output device, use --out to render through OpenAL's \
            loopback device instead. Live, the audio session is active: while another media \
            player on the session D-Bus (MPRIS) plays, the music ducks and effects carry on \
            (--no-system-hints turns that off); session events are printed to stderr.

            A .yaml or .yml FILE is a scene (see Demos/Scenes/README.md): it plays live showing \
            the scene time, active and virtual voices and session events; Ctrl-C fades out and \
            closes the device. --seconds shortens it and --out renders it offline.
            """)

    @Argument(help: "The audio file (WAV, AIFF, FLAC, Ogg, CAF …) or a scene (.yaml).")
    var file: String

    @Option(name: .long, parsing: .unconditional, help: "Position X,Y,Z in metres (default: centred, not positioned).")
    var at: String?

    @Option(name: .long, parsing: .unconditional, help: "Linear gain (default 1).")
    var gain: Float = 1

    @Flag(name: .long, help: "Loop the clip until --seconds have passed.")
    var loop = false

    @Option(
        name: .long, parsing: .unconditional,
        help: "Stop after this many seconds (default: the clip's length; 10 when looping).")
    var seconds: Double?

    @Option(
        name: .long,
        help:
            "Play live on this device (a name `earshot devices` lists) instead of the default one. If it goes away, playback falls back to the default device."
    )
    var device: String?

    @Option(name: [.customShort("o"), .long], help: "Render offline to this WAV file instead of playing live.")
    var out: String?

    @Option(name: .long, parsing: .unconditional, help: "Sample rate of the offline render (default 48000).")
    var rate: Int = 48_000

    @Flag(name: .long, help: "Stream FILE as a music track (gapless loops, ends when the track finishes).")
    var music = false

    @OptionGroup var musicOptions: MusicOptions

    @Flag(name: .customLong("no-system-hints"),
          help: "Live: do not let media players on the session D-Bus (MPRIS) duck the music.")
    var noSystemHints = false

    func validate() throws {
        if let seconds, !(seconds > 0 && seconds.isFinite && seconds <= FrameLoop.maxSeconds) {
            throw ValidationError("--seconds must be more than 0 and at most \(Int(FrameLoop.maxSeconds)) (24 hours)")
        }
        if !(gain.isFinite && gain >= 0) { throw ValidationError("--gain must be a number ≥ 0") }
        if !(8_000...192_000).contains(rate) { throw ValidationError("--rate must be within 8000…192000") }
        if let at, Self.parseVector(at) == nil { throw ValidationError("--at takes X,Y,Z, e.g. 3,0,0") }
        if musicOptions.effect != nil, !music { throw ValidationError("--effect goes with --music") }
        if musicOptions.speed != 1 || musicOptions.tape, !music {
            throw ValidationError("--speed and --tape go with --music")
        }
        if !(musicOptions.speed.isFinite && (0.5...2).contains(musicOptions.speed)) {
            throw ValidationError("--speed must be within 0.5…2")
        }
        if music {
            if !(musicOptions.volume.isFinite && (0...MusicTrack.maxVolume).contains(musicOptions.volume)) {
                throw ValidationError("--volume must be within 0…3.98 (+12 dB)")
            }
            if musicOptions.loops < -1 { throw ValidationError("--loops takes -1 (forever), 0 or more") }
            if musicOptions.loops == -1, out != nil, seconds == nil {
                throw ValidationError("--loops -1 with --out needs --seconds")
            }
        }
    }

    static func parseVector(_ text: String) -> Vector3? {
        let parts = text.split(separator: ",").map { Float($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 3, let x = parts[0], let y = parts[1], let z = parts[2] else { return nil }
        let v = Vector3(x, y, z)
        return v.isFinite ? v : nil
    }

    /// The live output: the named device, or the system's default.
    var liveOutput: Output { device.map { .device($0) } ?? .systemDefault }

    /// Whether FILE is a scene script rather than audio.
    var isScene: Bool { ["yaml", "yml"].contains((file as NSString).pathExtension.lowercased()) }

    func run() throws {
        if let out {
            // Before any work: a container libsndfile writes, in a folder that exists, over no input.
            do throws(EarshotError) { _ = try AudioFileWriter.Container.forPath(out) } catch { fail(error) }
            // A scene's clips and music are inputs too.
            var sceneInputs: [String] = []
            if isScene, case .success(let scene) = Scene.check(path: file) {
                sceneInputs = scene.clips.map(\.path) + scene.music.map(\.path)
            }
            OutputGuard.refuseOverwriting(
                [out], inputs: [file] + (musicOptions.effect.map { [$0] } ?? []) + sceneInputs)
            OutputGuard.requireWritableFolder(out)
            OutputGuard.removePartialOutputOnInterrupt()
        }
        if isScene {
            ScenePlayback(path: file, out: out, seconds: seconds, liveOutput: liveOutput, systemHints: !noSystemHints)
                .run()
            return
        }
        if music {
            MusicPlayback(file: file, options: musicOptions, seconds: seconds, out: out, rate: rate,
                          systemHints: !noSystemHints, liveOutput: liveOutput).run()
            return
        }
        let position = at.flatMap(Self.parseVector)
        let output: Output = out == nil ? liveOutput : .loopback(sampleRate: rate)
        do {
            // Decode first: a bad file is reported before any device is opened.
            let audio = try ClipDecoder.decode(path: file)
            let engine = try AudioEngine(configuration: .init(output: output))
            defer { engine.shutdown() }
            let clip = try engine.loadClip(audio, name: file, forPositioning: position != nil)
            let placement: PlayOptions.Placement = position.map { .spatial(SpatialProperties(position: $0)) } ?? .pan(0)
            let voice = try engine.play(clip, options: .init(gain: gain, loop: loop, placement: placement))
            let length = seconds ?? (loop ? 10 : clip.info.duration)
            let loopRunner = FrameLoop(engine: engine)
            if let out {
                try loopRunner.render(seconds: length, to: out) { _ in }
                note("earshot: wrote \(out) (\(Int((length * Double(rate)).rounded())) frames, \(rate) Hz, stereo)")
            } else {
                // A file played from the command line mixes with the user's players (ambient: they are
                // not paused, and still duck it); scenes choose their own category.
                engine.session.category = .ambient
                let printer = LiveSession.start(engine, systemHints: !noSystemHints)
                loopRunner.runLive(seconds: length) { _ in voice.isPlaying || loop }
                LiveSession.stop(engine, printer: printer)
            }
        } catch let error as EarshotError {
            fail(error)
        }
    }
}
