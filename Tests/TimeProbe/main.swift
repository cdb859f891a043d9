// Scheduled plays on a live device, for LiveSchedulingTests (issue 27), run as its own process
// so that OpenAL Soft and libpulse see the test's private PulseAudio daemon from the first call.
// Not a demo and not a product: only the tests run it.
//
//   TimeProbe clicks OFFSET...   a live engine on the default output, updated every ~16 ms
//       (a game's frame); once the stream has played 2.5 s (audioTime ≥ 2.5) it reads audioTime
//       `a`, plays one click (240 frames at 0.5) at once and one per OFFSET at startTime
//       a + 0.4 + OFFSET; runs until the last has sounded, then prints, one per line:
//       "sample MONO AUDIO" (monotonic seconds and audioTime, read at every update), "latency L"
//       (the output latency when the click played at once was mixed, if sure), "scheduled T...",
//       "done".
//   TimeProbe loop OFFSET   the same with one voice that loops a 0.25 s clip (the click, then
//       silence, marker "tick" on the click) from startTime a + 0.4 + OFFSET, stopped 1.85 s after
//       it began: eight clicks; also prints "markers T..." (the ticks' reported audio times).
//   TimeProbe pause OFFSET   one click at startTime a + 0.4 + OFFSET whose bus is paused for
//       ~0.2 s while it is in its lead-in: prints "paused MIN MAX" (the paused span lies
//       between) and "pauses N" (real voices that gave up their source to the pause).
//   TimeProbe dialogue FILE   one click at startTime a + 0.4, then at audioTime ≥ a + 0.6 says a
//       dialogue line whose file is FILE (issue 42) and updates until its subtitle hides: also
//       prints "show S" and "hide H" (the subtitle events' audio times).
// "FAIL ..." when something is wrong.
import COpenAL
import Earshot
import Foundation

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

func fail(_ message: String) -> Never {
    say("FAIL \(message)")
    exit(1)
}

/// The current context's device clock and output latency, seconds (`ALC_DEVICE_CLOCK_LATENCY_SOFT`).
func clockLatency() -> (clock: Double, latency: Double) {
    guard let context = alcGetCurrentContext(), let device = alcGetContextsDevice(context) else { fail("no current context") }
    var values: [ALCint64SOFT] = [0, 0]
    alcGetInteger64vSOFT(device, ALC_DEVICE_CLOCK_LATENCY_SOFT, 2, &values)
    return (Double(values[0]) / 1e9, Double(values[1]) / 1e9)
}

func monotonic() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// The audio times of the loop's "tick" markers, as the engine reports them (on the thread that updates it).
final class TickLog: @unchecked Sendable {   // `times` is only touched under `lock`
    private let lock = NSLock()
    private var list: [Double] = []
    func add(_ t: Double) { lock.lock(); list.append(t); lock.unlock() }
    var times: [Double] { lock.lock(); defer { lock.unlock() }; return list }
}

/// The audio times of a dialogue line's subtitle events (on the thread that updates).
final class SubtitleLog: @unchecked Sendable {   // `events` is only touched under `lock`
    private let lock = NSLock()
    private var events: [SubtitleEvent] = []
    func add(_ e: SubtitleEvent) { lock.lock(); events.append(e); lock.unlock() }
    var show: Double? { lock.lock(); defer { lock.unlock() }; return events.first { if case .show = $0 { true } else { false } }?.time }
    var hide: Double? { lock.lock(); defer { lock.unlock() }; return events.first { if case .hide = $0 { true } else { false } }?.time }
}

let arguments = CommandLine.arguments
let givenOffsets = arguments.dropFirst(2).compactMap(Double.init)
let looping = arguments.count >= 2 && arguments[1] == "loop"
let pausing = arguments.count >= 2 && arguments[1] == "pause"
let dialogueFile = arguments.count == 3 && arguments[1] == "dialogue" ? arguments[2] : nil
let offsets = dialogueFile == nil ? givenOffsets : [0]
guard dialogueFile != nil
        || (arguments.count >= 3 && (arguments[1] == "clicks" || ((looping || pausing) && offsets.count == 1))
            && offsets.count == arguments.count - 2 && offsets.allSatisfy({ (0..<30).contains($0) })) else {
    fail("usage: TimeProbe clicks OFFSET... | TimeProbe loop OFFSET | TimeProbe pause OFFSET | TimeProbe dialogue FILE")
}
do {
    let engine = try AudioEngine(configuration: AudioEngine.Configuration())
    // A click: 240 frames at 0.5, at the device's rate (no resampling): its first frame is its onset.
    let click = try engine.loadClip(PCMAudio(sampleRate: engine.sampleRate, channels: 1,
                                             samples: .float32([Float](repeating: 0.5, count: 240))), name: "click")
    // A loop of 0.25 s: the click, then silence.
    let period = engine.sampleRate / 4
    // Its click's first frame is marker "tick": each pass reports it with the time it is heard.
    let loopClip = try engine.loadClip(PCMAudio(sampleRate: engine.sampleRate, channels: 1, samples: .float32(
        [Float](repeating: 0.5, count: 240) + [Float](repeating: 0, count: period - 240))), name: "loop")
        .withMarkers([Marker(name: "tick", frame: 0)])
    let ticks = TickLog()
    engine.observeMarkers { if $0.name == "tick" { ticks.add($0.audioTime) } }
    var samples: [(Double, Double)] = []
    func frame() {
        engine.update(deltaTime: 1.0 / 60)
        samples.append((monotonic(), engine.audioTime))
        usleep(16_000)
    }
    // Until the stream has played 2.5 s. On a fresh PulseAudio 16 daemon a new stream is not
    // consumed for 1.4–1.8 s (the clock rightly stands meanwhile: nothing is heard), then for
    // about 1.5 s the server grows its latency (the clock runs ~1 % slow and drops back 30–70 ms
    // once, as the reported latency jumps); after that it runs smoothly with the sink.
    let warm = monotonic()
    while engine.audioTime < 2.5, monotonic() - warm < 8 { frame() }
    if engine.audioTime < 2.5 { fail("the stream did not play 2.5 s in 8 s") }
    let before = clockLatency()
    let a = engine.audioTime
    let atOnce = try engine.play(click)   // at once: mixed next, heard one output latency after `a`
    let after = clockLatency()
    // The click played at once is mixed where the device clock stood (unless a mix came between
    // the reads: then nothing is said), so heard the output latency after `a`.
    if before.clock == after.clock { say("latency \(after.latency)") }
    say("startnow \(atOnce.startTime ?? -1)")   // when the engine says it is heard
    let times = offsets.map { a + 0.4 + $0 }
    for t in times {
        var options = PlayOptions()
        options.startTime = t
        options.loop = looping
        let voice = try engine.play(looping ? loopClip : click, options: options)
        // A scheduled start knows its audio time exactly (Voice.startTime).
        guard let start = voice.startTime, abs(start - t) < 1e-9 else { fail("startTime \(String(describing: voice.startTime)) for a play at \(t)") }
        if pausing {
            // Into its lead-in, far from its time: the mixer runs the output latency ahead of
            // the clock and mixes in bursts of up to ~85 ms, and a voice starts up to two frame
            // times (at most 0.25 s) before the mixer reaches it. So 0.3 s before the mixer does,
            // one long frame (0.12 s) then an update: it starts with a lead-in of ~0.16 s, and its
            // bus pauses at once, for ~0.2 s, then resumes.
            let latency = clockLatency().latency
            while engine.audioTime < t - latency - 0.3 { frame() }
            usleep(120_000)
            frame()
            let before = engine.stats.pauses
            let from = monotonic()
            try engine.setPaused(true, for: .sfx)
            let pausedAt = monotonic()
            for _ in 0..<12 { frame() }
            let to = monotonic()
            try engine.setPaused(false, for: .sfx)
            let resumedAt = monotonic()
            // The paused span as the engine counted it lies between these two.
            say("paused \(to - pausedAt) \(resumedAt - from)")
            say("pauses \(engine.stats.pauses - before)")
        }
        if looping {
            // Eight passes heard — more than the copies queued after the lead-in (six: 1.5 s), so
            // the loop must have gone on with AL_LOOPING — then stopped before the ninth.
            while engine.audioTime < t + 1.85 { frame() }
            voice.stop(fade: 0)
        }
    }
    if let dialogueFile {
        let subtitles = SubtitleLog()
        engine.observeSubtitles { subtitles.add($0) }
        try engine.setDialogueTable(DialogueTable(locales: ["en"], fallback: "en", lines: [
            "line": DialogueLine(key: "line", speaker: "probe", text: ["en": "A line."], files: ["en": dialogueFile]),
        ]))
        while engine.audioTime < a + 0.6 { frame() }
        try engine.say("line")
        let said = monotonic()
        while subtitles.hide == nil, monotonic() - said < 5 { frame() }
        say("show \(subtitles.show ?? -1)")
        say("hide \(subtitles.hide ?? -1)")
    }
    while engine.audioTime < (times.max() ?? a) + (pausing ? 0.6 : 0.3) { frame() }
    engine.shutdown()
    for (m, t) in samples { say("sample \(m) \(t)") }
    if looping { say("markers " + ticks.times.map { "\($0)" }.joined(separator: " ")) }
    say("scheduled " + times.map { "\($0)" }.joined(separator: " "))
    say("done")
} catch {
    fail("\(error)")
}
