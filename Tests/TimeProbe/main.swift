// Scheduled plays on a live device, for LiveSchedulingTests (issue 27), run as its own process
// so that OpenAL Soft and libpulse see the test's private PulseAudio daemon from the first call.
// Not a demo and not a product: only the tests run it.
//
//   TimeProbe clicks GAP   a live engine on the default output, updated every ~16 ms (a game's
//       frame); after 0.5 s it reads audioTime `a` and plays two clicks at startTime a + 0.4 and
//       a + 0.4 + GAP; runs until the second has sounded, then prints, one per line:
//       "sample MONO AUDIO" (monotonic seconds and audioTime, read at every update),
//       "scheduled T1 T2", "done". "FAIL ..." when something is wrong.
import Earshot
import Foundation

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

func fail(_ message: String) -> Never {
    say("FAIL \(message)")
    exit(1)
}

func monotonic() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

let arguments = CommandLine.arguments
guard arguments.count == 3, arguments[1] == "clicks", let gap = Double(arguments[2]), gap > 0, gap < 30 else {
    fail("usage: TimeProbe clicks GAP")
}
do {
    let engine = try AudioEngine(configuration: AudioEngine.Configuration())
    // A click: 240 frames at 0.5, at the device's rate (no resampling): its first frame is its onset.
    let click = try engine.loadClip(PCMAudio(sampleRate: engine.sampleRate, channels: 1,
                                             samples: .float32([Float](repeating: 0.5, count: 240))), name: "click")
    var samples: [(Double, Double)] = []
    func frame() {
        engine.update(deltaTime: 1.0 / 60)
        samples.append((monotonic(), engine.audioTime))
        usleep(16_000)
    }
    let warm = monotonic()
    while monotonic() - warm < 0.5 { frame() }
    let a = engine.audioTime
    var first = PlayOptions()
    first.startTime = a + 0.4
    var second = PlayOptions()
    second.startTime = a + 0.4 + gap
    _ = try engine.play(click, options: first)
    _ = try engine.play(click, options: second)
    while engine.audioTime < a + 0.4 + gap + 0.3 { frame() }
    engine.shutdown()
    for (m, t) in samples { say("sample \(m) \(t)") }
    say("scheduled \(a + 0.4) \(a + 0.4 + gap)")
    say("done")
} catch {
    fail("\(error)")
}
