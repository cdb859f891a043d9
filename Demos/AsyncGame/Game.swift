import Earshot

// A game that starts in async code: the engine may be made, used and shut down on any thread
// (here a pool thread, after an await). Its event streams end at shutdown, so the task that
// listens ends too. `AsyncGame --live` plays on the default output instead of rendering.
@main
struct Game {
    static func main() async throws {
        let live = CommandLine.arguments.contains("--live")
        let engine = try AudioEngine(configuration: .init(output: live ? .systemDefault : .loopback(sampleRate: 48_000)))
        let events = engine.voiceEvents   // a stream sees the events after it is made: take it first
        let listener = Task {
            var finished = 0
            for await event in events where event.reason == .finished { finished += 1 }
            return finished   // the loop ends when the engine shuts down
        }
        let beep = try engine.loadClip(path: "Assets/Sounds/beep.wav")
        let voice = try engine.play(beep, options: .init(position: Vector3(2, 0, 0)))
        while voice.isPlaying {   // the game loop, 60 frames a second
            engine.update(deltaTime: 1.0 / 60)
            if live { try await Task.sleep(for: .milliseconds(16)) } else { _ = try engine.render(frames: 800) }
        }
        engine.shutdown()
        print("AsyncGame: \(await listener.value) voice finished; the engine is shut down")
    }
}
