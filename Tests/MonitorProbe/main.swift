// A game in miniature with its monitor on, for MonitorCLITests (issue 30), run as its own process
// so that `earshot monitor PID` finds it as it would find a game. Not a demo and not a product:
// only the tests run it.
//
//   MonitorProbe voices SECONDS   a loopback engine (Configuration.monitor) plays a known set of
//       voices — tone on sfx at −6 dB (3 m right), tone on sfx at −12 dB (left), tone on ui at
//       0 dB, tone on voice at −3.5 dB (paused) — and a sound (blip.wav, 50 ms) played once
//       before and refused by its cooldown every 0.25 s while a monitor client is connected, and a game
//       parameter, speed = 3.5; prints
//       "ready PID PATH", then one line "voice ID BUS GAINDB STATE" per voice as the engine
//       reports them, then "listed", and drives 60 frames a second (update + render) until
//       SECONDS have passed or its stdin closes.
//   MonitorProbe sounds SECONDS BANK   the bank at BANK loaded and watched (its sounds named by
//       their ids): plays its `car` (layered) and its `step` twice (variations 1 and 2 of its
//       sequence), and a sound made in code named `horn` (SoundDefinition.name); prints "ready PID
//       PATH" and drives frames as above (a save of BANK shows as a `bank-reloaded` event).
import Earshot
import EarshotBanks
import Foundation
import Synchronization

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

/// Drives 60 frames a second until `seconds` have passed or stdin closes; `each` runs before each.
func drive(_ engine: AudioEngine, seconds: Double, each: () throws -> Void = {}) throws {
    let stop = Atomic<Bool>(false)
    Thread.detachNewThread {
        _ = FileHandle.standardInput.readDataToEndOfFile()
        stop.store(true, ordering: .relaxed)
    }
    let start = Date()
    var buffer = [Float](repeating: 0, count: 800 * 2)
    while Date().timeIntervalSince(start) < seconds, !stop.load(ordering: .relaxed) {
        try each()
        engine.update(deltaTime: 1.0 / 60)
        try buffer.withUnsafeMutableBufferPointer { try engine.render(into: $0) }
        usleep(16_000)
    }
}

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "sounds", let seconds = Double(arguments[2]) {
    var configuration = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000))
    configuration.monitor = true
    let engine = try AudioEngine(configuration: configuration)
    let bank = try SoundBank(path: arguments[3], engine: engine, watch: true)
    _ = try bank.play("car")
    _ = try bank.play("step")
    _ = try bank.play("step")
    let horn = try engine.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .float32(
        (0..<48_000).map { Float(0.1 * sin(2 * Double.pi * 330 * Double($0) / 48_000)) })), name: "beep.wav")
    var definition = SoundDefinition(clips: [horn], loop: true)
    definition.name = "horn"
    _ = try engine.play(try engine.makeSound(definition))
    engine.update(deltaTime: 1.0 / 60)
    say("ready \(getpid()) \(engine.monitorSocketPath ?? "-")")
    try drive(engine, seconds: seconds)
    bank.unload()
    engine.shutdown()
    say("done")
    exit(0)
}
guard arguments.count == 3, arguments[1] == "voices", let seconds = Double(arguments[2]) else {
    say("usage: MonitorProbe voices SECONDS | MonitorProbe sounds SECONDS BANK")
    exit(2)
}

var configuration = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000))
configuration.monitor = true
let engine = try AudioEngine(configuration: configuration)
let tone = PCMAudio(sampleRate: 48_000, channels: 1, samples: .float32(
    (0..<48_000).map { Float(0.2 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }))
let clip = try engine.loadClip(tone, name: "tone.wav")
func dB(_ g: Double) -> Float { Float(pow(10, g / 20)) }
let voices: [Voice] = [
    try engine.play(clip, options: .init(gain: dB(-6), loop: true, position: Vector3(3, 0, 0), bus: .sfx)),
    try engine.play(clip, options: .init(gain: dB(-12), loop: true, position: Vector3(-2, 0, 0), bus: .sfx)),
    try engine.play(clip, options: .init(gain: 1, loop: true, bus: .ui)),
    try engine.play(clip, options: .init(gain: dB(-3.5), loop: true, bus: .voice)),
]
engine.setPaused(true, of: voices[3])
// The sound: a 50 ms blip, over before the probe says it is ready.
let blip = try engine.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .float32(
    (0..<2_400).map { Float(0.2 * sin(2 * Double.pi * 880 * Double($0) / 48_000)) })), name: "blip.wav")
var cooldown = SoundDefinition(clips: [blip])
cooldown.cooldown = 60
let sound = try engine.makeSound(cooldown)
_ = try engine.play(sound, options: .init(pan: 0, bus: .sfx))   // plays (a one-shot of 1 s)
// A game parameter at 3.5 of 0…10.
try engine.defineParameter(ParameterDefinition(name: "speed", range: 0...10))
try engine.setParameter("speed", 3.5, ramp: 0)
for _ in 0..<6 {   // 0.1 s: the blip ends
    engine.update(deltaTime: 1.0 / 60)
    _ = try engine.render(frames: 800)
}
engine.update(deltaTime: 1.0 / 60)

say("ready \(getpid()) \(engine.monitorSocketPath ?? "-")")
for (v, bus) in zip(voices, ["sfx", "sfx", "ui", "voice"]) {
    let gain = 20 * log10(Double(v.gain ?? 0))
    say("voice \(bus) \(String(format: "%.3f", gain)) \(engine.status(of: v).rawValue)")
}
say("listed")

// While a monitor client is connected, the sound is refused by its cooldown every 0.25 s: once,
// when the client was first counted, raced the client's first frames (a CI run saw no event in
// twelve frames).
var lastRefused = -Double.infinity
try drive(engine, seconds: seconds) {
    let now = Date().timeIntervalSinceReferenceDate
    if engine.monitorClientCount > 0, now - lastRefused >= 0.25 {
        _ = try engine.play(sound, options: .init(pan: 0, bus: .sfx))   // refused: its cooldown
        lastRefused = now
    }
}
engine.shutdown()
say("done")
