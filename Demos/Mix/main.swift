// Mix: a footstep sound of three clips (shuffled, ±1 semitone, ±3 dB), at most three at once and
// never two within 50 ms, stepping around the listener; an "underwater" snapshot lowers and
// muffles the effects from 2 s to 4 s. Renders to out/Mix.wav (or the path given).
import Earshot
import Foundation

let path = CommandLine.arguments.dropFirst().first ?? "out/Mix.wav"
let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000), randomSeed: 7))
defer { engine.shutdown() }
let clips = try ["step", "coin", "beep"].map { try engine.loadClip(path: "Assets/Sounds/\($0).wav") }
var steps = SoundDefinition(clips: clips, selection: .shuffle, pitchVariation: 100, gainVariation: 3)
steps.limit = .init(count: 3, steal: .oldest)
steps.cooldown = 0.05
let footstep = try engine.makeSound(steps)
let underwater = Snapshot("underwater", busGains: [.sfx: -12], busFilters: [.sfx: LowPassFilter(gain: 1, gainHF: 0.1)])
var refused = 0
try FrameLoop(engine: engine).render(seconds: 6, to: path) { t in
    let frame = Int((t * 60).rounded())
    let at = Vector3(3 * Float(cos(t)), 0, -3 * Float(sin(t)))
    if frame % 4 == 0 || frame % 60 == 1 {   // a step every 67 ms; each second a second one 17 ms later
        if try engine.play(footstep, options: SoundPlayOptions(position: at)).status == .refused { refused += 1 }
    }
    if frame == 120 { try engine.begin(underwater, fade: 0.5) }
    if frame == 240 { engine.end(underwater, fade: 0.5) }
}
let s = engine.stats
print("Mix: wrote \(path)")
print("Mix: \(refused) plays refused by the cooldown (\(s.cooldownRefusals) counted), \(s.limitSteals) voices stolen by the limit")
