// Footsteps: IMA4 clips preloaded with a ClipBank, played at random positions around the listener.
// Renders to out/Footsteps.wav (or the path given), then plays live when an output device exists.
import Earshot
import Foundation

func footsteps(_ engine: AudioEngine, _ run: (FrameLoop, (Double) throws -> Void) throws -> Void) throws {
    let bank = ClipBank(engine: engine)
    let clips = try ["step", "coin"].map { try bank.preload(name: $0, path: "Assets/Sounds/\($0)-ima4.caf") }
    srand48(7)
    try run(FrameLoop(engine: engine)) { t in   // a step every 0.35 s, now and then a coin
        guard Int((t * 60).rounded()) % 21 == 0 else { return }
        let at = Vector3(Float(drand48() * 8 - 4), 0, Float(drand48() * 8 - 4))
        _ = try engine.play(clips[drand48() < 0.8 ? 0 : 1], options: .init(pitch: Float(0.9 + drand48() / 5), position: at))
    }
}
let path = CommandLine.arguments.dropFirst().first ?? "out/Footsteps.wav"
try footsteps(try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))) { try $0.render(seconds: 5, to: path, $1) }
print("Footsteps: wrote \(path)")
if let live = try? AudioEngine() { try footsteps(live) { loop, body in try loop.runLive(seconds: 5) { try body($0); return true } } }
