// Ducking: the theme plays while footsteps walk past; from 1.5 s to 3.5 s another app's audio
// raises the secondary-audio hint, so the music bus ducks to silence (0.1 s attack) and comes back
// (0.5 s release) while the footsteps carry on. Renders to out/Ducking.wav (or the path given),
// then plays live when an output device exists.
import Earshot
import Foundation

func ducking(_ engine: AudioEngine, _ run: (FrameLoop, (Double) throws -> Void) throws -> Void) throws {
    let theme = try engine.loadMusic(path: "Assets/Music/theme.ogg")
    theme.numberOfLoops = -1
    try theme.play()
    let step = try engine.loadClip(path: "Assets/Sounds/step.wav")
    // The session ducks the music bus (silent, 0.1 s attack, 0.5 s release); effects carry on.
    engine.session.activate()
    var nextStep = 0.0
    try run(FrameLoop(engine: engine)) { t in
        engine.session.setSecondaryAudioHint((1.5..<3.5).contains(t))
        if t >= nextStep {
            nextStep += 0.4
            _ = try engine.play(step, options: .init(position: Vector3(Float(t - 2.5), 0, -1.5)))
        }
    }
    theme.stop()
}

let path = CommandLine.arguments.dropFirst().first ?? "out/Ducking.wav"
let offline = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
try ducking(offline) { loop, body in try loop.render(seconds: 5, to: path, body) }
offline.shutdown()
print("Ducking: wrote \(path)")

if let live = try? AudioEngine() {
    try ducking(live) { loop, body in try loop.runLive(seconds: 5) { try body($0); return true } }
    live.shutdown()
}
