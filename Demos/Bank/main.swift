// Bank: the game side of a designer's bank (Demos/Bank/game.yaml) — footsteps, a car whose
// layers follow its rpm, and a pause snapshot, played by name. Renders to out/Bank.wav (or the
// path given); `--live` plays it too.
import Earshot
import EarshotBanks
import Foundation

func drive(_ engine: AudioEngine, _ run: (FrameLoop, (Double) throws -> Void) throws -> Void) throws {
    let bank = try SoundBank(path: "Demos/Bank/game.yaml", engine: engine)
    defer { bank.unload() }
    var car: Voice?
    var paused = false
    try run(FrameLoop(engine: engine)) { t in
        if car == nil { car = try bank.play("car", options: SoundPlayOptions(position: Vector3(-6, 0, -4))) }
        car?.position = Vector3(Float(-6 + 3 * t), 0, -4)            // the car drives past,
        try car?.setParameter("rpm", min(800 + 2_000 * t, 5_000))     // revving up
        if Int((t * 60).rounded()) % 24 == 0 {                         // a step every 0.4 s
            _ = try bank.play("footstep", options: SoundPlayOptions(position: Vector3(0.5, 0, -1)))
        }
        if t >= 2.5, !paused {                                         // the player opens the menu
            paused = true
            try engine.begin(try bank.snapshot("pause"), fade: 0.3)
            _ = try bank.play("pickup")
        }
    }
}

let path = CommandLine.arguments.dropFirst().first { !$0.hasPrefix("--") } ?? "out/Bank.wav"
try drive(try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))) { try $0.render(seconds: 4, to: path, $1) }
print("Bank: wrote \(path)")
if CommandLine.arguments.contains("--live"), let live = try? AudioEngine() {
    try drive(live) { loop, body in try loop.runLive(seconds: 4) { try body($0); return true } }
}
