// Beat: a drum pattern placed on the audio clock. Every hit is scheduled ahead with
// `PlayOptions.startTime`, so it lands on its exact frame whatever the game's frame rate.
// Renders to out/Beat.wav (or the path given), then plays live when an output device exists.
import Earshot

let pattern = ["step", "coin", "step", "step", "coin", "step", "coin", "coin"]   // eighth notes
let bpm = 100.0, eighth = 60 / bpm / 2

func beat(_ engine: AudioEngine, bars: Int, _ run: (FrameLoop, (Double) throws -> Void) throws -> Void) throws {
    let clips = try ["step", "coin"].map { try engine.loadClip(path: "Assets/Sounds/\($0).wav") }
    var next = 0   // the next hit to schedule
    let start = engine.audioTime + 0.1
    try run(FrameLoop(engine: engine)) { _ in
        // Keep a quarter of a second scheduled ahead of what is heard.
        while next < bars * pattern.count, start + Double(next) * eighth < engine.audioTime + 0.25 {
            var options = PlayOptions(gain: next % 4 == 0 ? 1 : 0.6)
            options.startTime = start + Double(next) * eighth
            _ = try engine.play(clips[pattern[next % pattern.count] == "step" ? 0 : 1], options: options)
            next += 1
        }
    }
}
let path = CommandLine.arguments.dropFirst().first ?? "out/Beat.wav"
try beat(try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000))), bars: 2) {
    try $0.render(seconds: 5, to: path, $1)
}
print("Beat: wrote \(path) (\(2 * pattern.count) hits, one every \(Int(eighth * 48_000)) frames from frame 4800)")
if let live = try? AudioEngine() { try beat(live, bars: 2) { loop, body in try loop.runLive(seconds: 5) { try body($0); return true } } }
