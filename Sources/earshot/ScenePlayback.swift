import Dispatch
import Earshot
import EarshotScenes
import Foundation

/// `earshot play SCENE.yaml`: a scene played live on the default output device, showing scene
/// time, active and virtual voices and session events; Ctrl-C fades out and closes the device.
/// With `--out` the scene is rendered offline instead.
struct ScenePlayback {
    var path: String
    var out: String?
    var seconds: Double?
    /// Live: where to play.
    var liveOutput: Output = .systemDefault
    /// Live: MPRIS players on the session D-Bus raise the secondary-audio hint (as for
    /// `play FILE --music`); `--no-system-hints` turns it off.
    var systemHints = true

    func run() {
        let scene = SceneDescription.load(path)
        if let out {
            do {
                let r = try SceneRenderer(scene: scene).render(to: out, duration: seconds)
                note("earshot: wrote \(out) (\(r.frames) frames, \(r.sampleRate) Hz, \(r.channels) channels)")
            } catch {
                fail(error)
            }
            return
        }
        let player: ScenePlayer
        do {
            player = try ScenePlayer(scene: scene, output: liveOutput)
        } catch {
            fail(error)
        }
        // The same live session as `play FILE`: the scene's category and ducking, MPRIS players
        // feeding the hint (checked at activation, so a player already playing ducks the music
        // from the start), session events printed. The scene's own `hint:` events add to it.
        let engine = player.engine
        let settings = scene.session
        engine.session.category = AudioSession.Category(rawValue: settings.category.rawValue) ?? .soloAmbient
        engine.session.duckLevel = settings.ducking.levelDB ?? -.infinity
        engine.session.attack = settings.ducking.attack
        engine.session.release = settings.ducking.release
        let printer = LiveSession.start(engine, systemHints: systemHints)
        defer { LiveSession.stop(engine, printer: printer) }
        // Ctrl-C: ask the frame loop to fade out and stop; the device is closed on the way out.
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { player.requestStop() }
        interrupt.resume()
        defer { interrupt.cancel() }

        let tty = isatty(2) != 0
        var lastDraw = -1.0
        note("earshot: playing \"\(scene.name)\" (\(SceneDescription.seconds(scene.duration)) s); Ctrl-C stops")
        let reached: Double
        do {
            reached = try player.run(
                duration: seconds,
                status: { status in
                    for e in status.events {
                        if case .play = e.action { continue }  // one-shots show in the voice counts
                        note(String(format: "  %6.2f s  ", e.time) + e.label, prefix: tty ? "\r\u{1B}[K" : "")
                        lastDraw = -1
                    }
                    guard tty, status.time - lastDraw >= 0.1 else { return }
                    lastDraw = status.time
                    note(
                        String(
                            format: "  %6.2f / %.2f s   active voices %d, virtual %d",
                            status.time, status.duration, status.realVoices, status.virtualVoices), newline: false,
                        prefix: "\r\u{1B}[K")
                })
        } catch {
            if tty { note("") }
            fail(error)
        }
        if tty { note("") }
        if player.isStopRequested {
            note(String(format: "earshot: stopped at %.2f s (faded out, device closed)", reached))
        }
    }
}
