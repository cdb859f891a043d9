// Crowd: 300 looping voices circle the listener on 24 real sources while important one-shots
// keep arriving. Priorities decide who is heard: a one-shot steals the source of the least
// important, quietest hum, and the voices without a source run on as virtual voices until they
// win one back. Renders to out/Crowd.wav (or the path given), then plays live when a device exists.
import Earshot
import Foundation

func crowd(_ engine: AudioEngine, _ run: (FrameLoop, (Double) throws -> Void) throws -> Void) throws {
    let hum = try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")
    let coin = try engine.loadClip(path: "Assets/Sounds/coin.wav")
    srand48(3)
    var people: [(emitter: Emitter, radius: Double, speed: Double, phase: Double)] = []
    for i in 0..<300 {
        let radius = 2 + drand48() * 28, phase = drand48() * 2 * .pi
        let emitter = try engine.makeEmitter(SpatialProperties(position: Vector3(Float(radius * cos(phase)), 0, Float(-radius * sin(phase)))))
        // A few regulars matter more (priority 64) than the rest of the crowd (priority 200).
        _ = try engine.play(hum, options: .init(gain: 0.25, pitch: Float(0.7 + drand48() * 0.6), loop: true,
                                                priority: i % 30 == 0 ? 64 : 200, emitter: emitter))
        people.append((emitter, radius, (drand48() - 0.5) * 0.6, phase))
    }
    var nextCoin = 0.0, nextReport = 0.0
    try run(FrameLoop(engine: engine)) { t in
        engine.batch { frame in
            for p in people {
                let a = p.phase + p.speed * t
                frame.setPosition(Vector3(Float(p.radius * cos(a)), 0, Float(-p.radius * sin(a))), of: p.emitter)
            }
        }
        if t >= nextCoin {   // priority 10: always heard, stealing a source when none is free
            nextCoin += 0.25
            _ = try engine.play(coin, options: .init(priority: 10, position: Vector3(Float(drand48() * 6 - 3), 0, -2)))
        }
        if t >= nextReport {
            nextReport += 1
            let s = engine.stats
            print("Crowd: \(Int(t)) s  \(s.realVoices) real, \(s.virtualVoices) virtual, \(s.steals) steals")
        }
    }
}

let path = CommandLine.arguments.dropFirst().first ?? "out/Crowd.wav"
let offline = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000), maxRealVoices: 24))
try crowd(offline) { loop, body in try loop.render(seconds: 4, to: path, body) }
offline.shutdown()
print("Crowd: wrote \(path)")

if let live = try? AudioEngine(configuration: .init(maxRealVoices: 24)) {
    try crowd(live) { loop, body in try loop.runLive(seconds: 4) { try body($0); return true } }
    live.shutdown()
}
