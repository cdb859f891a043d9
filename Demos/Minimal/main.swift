import Earshot

// An engine, a clip and a voice 2 m to the right, rendered offline. A game passes
// `.init()` (the default output) and calls `engine.update(deltaTime:)` once per frame.
let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
defer { engine.shutdown() }
let beep = try engine.loadClip(path: "Assets/Sounds/beep.wav")
let voice = try engine.play(beep, options: .init(position: Vector3(2, 0, 0)))
var frames = 0, peak: Float = 0
while voice.isPlaying {
    engine.update(deltaTime: 1.0 / 60)
    for sample in try engine.render(frames: 800) { peak = max(peak, abs(sample)) }
    frames += 800
}
print("Minimal: rendered \(frames) frames, peak \(peak)")
