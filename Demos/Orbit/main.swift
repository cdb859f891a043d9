// Orbit: a humming emitter circles the listener once every 4 seconds — right, front, left, behind.
// Renders to out/Orbit.wav (or the path given), then plays live when an output device exists.
import Earshot
import Foundation

func orbit(_ engine: AudioEngine, _ run: (FrameLoop, (Double) -> Void) throws -> Void) throws {
    let hum = try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")
    let voice = try engine.play(hum, options: .init(loop: true, position: Vector3(5, 0, 0)))
    try run(FrameLoop(engine: engine)) { t in
        let angle = Float(t / 4 * 2 * .pi)              // a quarter turn takes 1 s
        voice.position = Vector3(5 * cos(angle), 0, -5 * sin(angle))
    }
}

let path = CommandLine.arguments.dropFirst().first ?? "out/Orbit.wav"
let offline = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
try orbit(offline) { loop, move in try loop.render(seconds: 8, to: path, move) }
offline.shutdown()
print("Orbit: wrote \(path)")

if let live = try? AudioEngine() {
    try orbit(live) { loop, move in loop.runLive(seconds: 8) { move($0); return true } }
    live.shutdown()
}
