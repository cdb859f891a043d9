// A game in miniature for LiveLifetimeTests (issue 23 items 1 and 6), run as its own process so
// that OpenAL Soft and libpulse see the test's private PulseAudio daemon from the first call.
// Not a demo and not a product: only the tests run it.
//
//   LifetimeProbe engines MODE DIR   live engines made on the main thread, in a Task (after an
//       await) and in a Task.detached; the task-made ones are shut down and timed
//       ("shutdown-ms X"); prints "ready", waits for DIR/go, then ends by MODE:
//       exit (exit(0), no shutdown), return (main returns, no shutdown), shutdown, wait (the test
//       kills it).
//   LifetimeProbe race N MODULE      N times: a live engine plays, the null sink `game` (module
//       MODULE, then each reloaded one) is unloaded under it (the engine does not follow the default
//       output, so its stream is dropped, not moved), and shutdown() lands at a random
//       moment of the recovery. Prints one line per round; "FAIL ..." when something is wrong.
import Earshot
import Foundation
import Synchronization

let arguments = CommandLine.arguments

/// One line to stdout, unbuffered (the test reads it while the probe runs).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

func fail(_ message: String) -> Never {
    say("FAIL \(message)")
    exit(1)
}

let tone = PCMAudio(sampleRate: 48_000, channels: 1, samples: .float32(
    (0..<48_000).map { Float(0.2 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }))

/// A live engine on the default output, playing a looping tone. `follows`: the stream moves
/// with the default output (then an unloaded sink moves it instead of dropping it).
func liveEngine(follows: Bool = true) throws -> AudioEngine {
    var configuration = AudioEngine.Configuration()
    configuration.followsDefaultOutput = follows
    let engine = try AudioEngine(configuration: configuration)
    let clip = try engine.loadClip(tone, name: "tone")
    _ = try engine.play(clip, options: .init(loop: true))
    return engine
}

func milliseconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// Runs pactl (race mode only: the probe plays the user unplugging an output).
@discardableResult
func pactl(_ args: [String]) -> String {
    let p = startPactl(args)
    let data = (p.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Starts pactl without waiting for it.
func startPactl(_ args: [String]) -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
    p.arguments = args
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    do { try p.run() } catch { fail("pactl \(args): \(error)") }
    return p
}

/// The server's clients (the pactl asking is one of them, every time).
func clients() -> Int { pactl(["list", "short", "clients"]).split(separator: "\n").count }

// Kept here so that "return" ends the process without releasing them (no deinit, no shutdown).
nonisolated(unsafe) var kept: [AudioEngine] = []

switch arguments.count > 1 ? arguments[1] : "" {
case "engines":
    guard arguments.count == 4 else { fail("usage: engines MODE DIR") }
    let mode = arguments[2], go = arguments[3] + "/go"
    do {
        kept.append(try liveEngine())
        let fromTask = try await Task { () async throws -> [AudioEngine] in
            try await Task.sleep(nanoseconds: 1_000_000)   // past an await: a pool thread
            return [try liveEngine(), try liveEngine()]
        }.value
        let fromDetached = try await Task.detached { [try liveEngine(), try liveEngine()] }.value
        kept += [fromTask[0], fromDetached[0]]
        // Shut down from a task too, as an async game would.
        for engine in [fromTask[1], fromDetached[1]] {
            let ms = await Task.detached { milliseconds { engine.shutdown() } }.value
            say(String(format: "shutdown-ms %.2f", ms))
        }
    } catch {
        fail("no live engine: \(error)")
    }
    say("engines \(kept.count)")
    say("ready")
    while !FileManager.default.fileExists(atPath: go) { usleep(5_000) }
    switch mode {
    case "exit": exit(0)
    case "return": break
    case "shutdown":
        for engine in kept { say(String(format: "shutdown-ms %.2f", milliseconds { engine.shutdown() })) }
    default:   // "wait": the test kills the process
        while true { sleep(1) }
    }

case "race":
    guard arguments.count == 4, let rounds = Int(arguments[2]) else { fail("usage: race N MODULE") }
    var module = arguments[3]
    let baseline = clients()
    var random = SystemRandomNumberGenerator()
    // Where shutdown lands moves with each round's outcome: later when it came before the loss
    // was noticed, earlier when the device was already restored (the window is a few ms wide).
    var delay = 20_000
    for round in 0..<rounds {
        let engine: AudioEngine
        // Pinned (OpenAL's default): unloading the sink drops the stream, a device loss.
        do { engine = try liveEngine(follows: false) } catch { fail("round \(round): no live engine: \(error)") }
        let returned = Atomic<Bool>(false)
        let late = Atomic<Int>(0)
        let seen = Mutex<[String]>([])
        engine.observeDeviceEvents { event in
            if returned.load(ordering: .acquiring) { late.add(1, ordering: .relaxed) }
            seen.withLock { $0.append({ if case .lost = event { "lost" } else { "restored" } }()) }
        }
        let stream = engine.deviceEvents
        let streamEnded = Atomic<Bool>(false)
        Task.detached {
            for await _ in stream {}
            streamEnded.store(true, ordering: .releasing)
        }
        let stop = Atomic<Bool>(false)
        let game = Thread {
            while !stop.load(ordering: .acquiring) {
                engine.update(deltaTime: 1.0 / 200)
                usleep(5_000)
            }
        }
        game.start()
        usleep(100_000)
        // The output goes away under the engine; the loss is noticed and a device reopened
        // within tens of milliseconds of the unload, so shutdown lands somewhere in there.
        let unloading = startPactl(["unload-module", module])
        usleep(UInt32(max(0, delay + Int.random(in: -3_000...3_000, using: &random))))
        let ms = milliseconds { engine.shutdown() }
        returned.store(true, ordering: .releasing)
        unloading.waitUntilExit()
        usleep(100_000)   // the game's thread keeps calling update
        stop.store(true, ordering: .releasing)
        module = pactl(["load-module", "module-null-sink", "sink_name=game"])
        pactl(["set-default-sink", "game"])
        var waited = 0
        while clients() != baseline, waited < 200 { usleep(10_000); waited += 1 }
        let back = clients() == baseline
        var ended = false
        for _ in 0..<200 where !ended { usleep(10_000); ended = streamEnded.load(ordering: .acquiring) }
        let events = seen.withLock { $0 }.joined(separator: "+")
        if events.isEmpty { delay += 4_000 } else if events.hasSuffix("restored") { delay = max(0, delay - 4_000) }
        say(String(format: "round %d: shutdown landed after [%@] in %.1f ms; clients back: %@; stream ended: %@; events after shutdown: %d",
                     round, events, ms, back ? "yes" : "no", ended ? "yes" : "no", late.load(ordering: .relaxed)))
        if !back { say("FAIL round \(round): the server has \(clients() - baseline) more clients than before") }
        if !ended { say("FAIL round \(round): deviceEvents did not end") }
        if late.load(ordering: .relaxed) > 0 { say("FAIL round \(round): an event after shutdown") }
    }
    say("module \(module)")

default:
    fail("usage: LifetimeProbe engines MODE DIR | race N MODULE")
}
