// A music set changing state on a live device, for LiveMusicSetTests (issue 29), run as its own
// process so that OpenAL Soft sees the test's private PulseAudio daemon from its first call.
// Not a demo and not a product: only the tests run it.
//
//   MusicProbe EXPLORE COMBAT   a live engine on the default output, updated every ~16 ms; once
//       the stream has played 2.5 s it starts a set in state `explore` (file EXPLORE, 120 bpm
//       4/4) at audioTime a + 0.4, asks for `combat` (file COMBAT) with a nextBar rule once
//       audioTime passes that start + 2.7 s, and runs until 0.6 s after the change. Prints
//       "start T", "begins B" (the audio time combat was planned for) and "done".
//   MusicProbe stems FILE   states `one` (FILE as one stem) and `two` (FILE twice, as two stems):
//       plays `one` for 1 s, changes to `two` at once, then 1 s later pauses the set for 0.3 s,
//       resumes it, 0.7 s later seeks it to 0.37 s, and runs 1 s more. Prints "done".
//   MusicProbe streams FILE   FILE as one AudioStream for 1 s; then stops it and starts FILE
//       twice, as two AudioStreams in one AudioStream.play(_:), and runs 1.5 s. Prints "done".
// "FAIL ..." when something is wrong.
import Earshot
import Foundation

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

func fail(_ message: String) -> Never {
    say("FAIL \(message)")
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: MusicProbe EXPLORE COMBAT | MusicProbe stems FILE | MusicProbe streams FILE") }

/// The probe's game loop on a live engine: 60 Hz frames.
struct GameLoop {
    let engine: AudioEngine
    func frame() {
        engine.update(deltaTime: 1.0 / 60)
        usleep(16_000)
    }
    /// Frames until `seconds` more of audio time have been heard.
    func run(_ seconds: Double) {
        let until = engine.audioTime + seconds
        while engine.audioTime < until { frame() }
    }
    /// Returns once the live stream has played 2.5 s (a new stream on a fresh daemon settles
    /// first: see TimeProbe).
    func warmUp() {
        let warm = Date()
        while engine.audioTime < 2.5, Date().timeIntervalSince(warm) < 8 { frame() }
        if engine.audioTime < 2.5 { fail("the stream did not play 2.5 s in 8 s") }
    }
}

if arguments[1] == "streams" {
    do {
        let engine = try AudioEngine(configuration: AudioEngine.Configuration())
        let loop = GameLoop(engine: engine)
        loop.warmUp()
        let one = try engine.openStream(path: arguments[2])
        try one.play()
        loop.run(1)
        one.stop()
        let a = try engine.openStream(path: arguments[2]), b = try engine.openStream(path: arguments[2])
        try AudioStream.play([a, b])
        loop.run(1.5)
        engine.shutdown()
        say("done")
    } catch {
        fail("\(error)")
    }
    exit(0)
}
if arguments[1] == "stems" {
    do {
        let engine = try AudioEngine(configuration: AudioEngine.Configuration())
        let stem = MusicSegment(path: arguments[2])
        let set = try engine.makeMusicSet(MusicSetDefinition(name: "stems", states: [
            .init(name: "one", content: .layers([.init(name: "a", segment: stem)])),
            .init(name: "two", content: .layers([.init(name: "a", segment: stem), .init(name: "b", segment: stem)])),
        ]))
        let loop = GameLoop(engine: engine)
        loop.warmUp()
        try set.play(state: "one")
        loop.run(1)
        try set.setState("two")
        loop.run(1)
        set.pause()
        loop.run(0.3)
        try set.resume()
        loop.run(0.7)
        try set.seek(to: 0.37)
        loop.run(1)
        engine.shutdown()
        say("done")
    } catch {
        fail("\(error)")
    }
    exit(0)
}
do {
    let engine = try AudioEngine(configuration: AudioEngine.Configuration())
    let tempo = Tempo(bpm: 120, beatsPerBar: 4)
    let set = try engine.makeMusicSet(MusicSetDefinition(name: "probe", states: [
        .init(name: "explore", content: .track(.init(path: arguments[1], tempo: tempo))),
        .init(name: "combat", content: .track(.init(path: arguments[2], tempo: tempo))),
    ], transitions: [.init(from: "explore", to: "combat", at: .nextBar)]))
    let loop = GameLoop(engine: engine)
    loop.warmUp()
    let start = engine.audioTime + 0.4
    try set.play(state: "explore", at: start)
    say("start \(start)")
    while engine.audioTime < start + 2.7 { loop.frame() }
    let begins = try set.setState("combat")
    say("begins \(begins)")
    while engine.audioTime < begins + 0.6 { loop.frame() }
    engine.shutdown()
    say("done")
} catch {
    fail("\(error)")
}
