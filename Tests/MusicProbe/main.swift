// A music set changing state on a live device, for LiveMusicSetTests (issue 29), run as its own
// process so that OpenAL Soft sees the test's private PulseAudio daemon from its first call.
// Not a demo and not a product: only the tests run it.
//
//   MusicProbe EXPLORE COMBAT   a live engine on the default output, updated every ~16 ms; once
//       the stream has played 2.5 s it starts a set in state `explore` (file EXPLORE, 120 bpm
//       4/4) at audioTime a + 0.4, asks for `combat` (file COMBAT) with a nextBar rule once
//       audioTime passes that start + 2.7 s, and runs until 0.6 s after the change. Prints
//       "start T", "begins B" (the audio time combat was planned for) and "done".
// "FAIL ..." when something is wrong.
import Earshot
import Foundation

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

func fail(_ message: String) -> Never {
    say("FAIL \(message)")
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: MusicProbe EXPLORE COMBAT") }
do {
    let engine = try AudioEngine(configuration: AudioEngine.Configuration())
    let tempo = Tempo(bpm: 120, beatsPerBar: 4)
    let set = try engine.makeMusicSet(MusicSetDefinition(name: "probe", states: [
        .init(name: "explore", content: .track(.init(path: arguments[1], tempo: tempo))),
        .init(name: "combat", content: .track(.init(path: arguments[2], tempo: tempo))),
    ], transitions: [.init(from: "explore", to: "combat", at: .nextBar)]))
    func frame() {
        engine.update(deltaTime: 1.0 / 60)
        usleep(16_000)
    }
    // Until the stream has played 2.5 s (a new stream on a fresh daemon settles first: see TimeProbe).
    let warm = Date()
    while engine.audioTime < 2.5, Date().timeIntervalSince(warm) < 8 { frame() }
    if engine.audioTime < 2.5 { fail("the stream did not play 2.5 s in 8 s") }
    let start = engine.audioTime + 0.4
    try set.play(state: "explore", at: start)
    say("start \(start)")
    while engine.audioTime < start + 2.7 { frame() }
    let begins = try set.setState("combat")
    say("begins \(begins)")
    while engine.audioTime < begins + 0.6 { frame() }
    engine.shutdown()
    say("done")
} catch {
    fail("\(error)")
}
