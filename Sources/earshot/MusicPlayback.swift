import ArgumentParser
import Earshot
import Foundation
import Synchronization

/// `earshot play FILE --music`'s own options: how the track plays (checked by `play`, which knows
/// whether --music is on).
struct MusicOptions: ParsableArguments {
    @Option(
        name: .long, parsing: .unconditional,
        help: "With --music: extra plays after the first (-1 loops until --seconds).")
    var loops: Int = 0

    @Option(name: .long, parsing: .unconditional, help: "With --music: track volume 0…3.98 (+12 dB; default 1).")
    var volume: Float = 1

    @Option(
        name: .long, parsing: .unconditional,
        help: "With --music: playback speed 0.5…2 (default 1); the pitch stays unless --tape.")
    var speed: Float = 1

    @Flag(name: .long, help: "With --music: --speed moves the pitch too, like a tape.")
    var tape = false

    @Option(
        name: .long, help: "With --music: also loop this clip as an effect on the sfx bus (ducking spares effects).")
    var effect: String?
}

/// `earshot play FILE --music`: streams FILE as a music track, live or rendered offline; stops at
/// `--seconds` or when the track finishes, whichever comes first.
struct MusicPlayback {
    var file: String
    /// Loops, volume, speed and tape, and a clip looped on the sfx bus alongside the track.
    var options: MusicOptions
    var seconds: Double?
    var out: String?
    var rate: Int
    /// Live: MPRIS players duck the music.
    var systemHints = true
    /// Live: where to play.
    var liveOutput: Output = .systemDefault

    private final class LastEnd: Sendable {
        private let event = Mutex<MusicTrack.Event?>(nil)
        func set(_ e: MusicTrack.Event) { event.withLock { $0 = e } }
        var value: MusicTrack.Event? { event.withLock { $0 } }
    }

    func run() {
        let failure: String?
        do {
            failure = try play()
        } catch let error as EarshotError {
            failure = error.cliDescription
        } catch {
            failure = "\(error)"
        }
        if let failure { fail(failure) }
    }

    /// Plays or renders the track; returns the message of a failed end (the engine is shut down
    /// by then, so `fail` exits cleanly).
    private func play() throws -> String? {
        let output: Output = out == nil ? liveOutput : .loopback(sampleRate: rate)
        let engine = try AudioEngine(configuration: .init(output: output))
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: file)
        if let effect = options.effect {
            let clip = try engine.loadClip(path: effect, forPositioning: false)
            _ = try engine.play(clip, options: .init(loop: true))
        }
        // A file played from the command line mixes with the user's players (ambient: they are
        // not paused, and still duck it); scenes choose their own category.
        engine.session.category = .ambient
        let printer = out == nil ? LiveSession.start(engine, systemHints: systemHints) : nil
        track.numberOfLoops = options.loops
        track.volume = options.volume
        track.rateMode = options.tape ? .tape : .keepsPitch
        track.rate = options.speed
        let lastEnd = LastEnd()
        track.onEnd = { lastEnd.set($0) }
        try track.play()
        if let out {
            let frames = try renderOffline(engine: engine, track: track, to: out)
            note("earshot: wrote \(out) (\(frames) frames, \(rate) Hz, stereo)")
        } else {
            let limit = seconds ?? .infinity
            let start = Date()
            // The frame loop: update() moves the duck ramp; an interruption pauses the track
            // without ending the run.
            while track.isPlaying || engine.session.isInterrupted, Date().timeIntervalSince(start) < limit {
                engine.update(deltaTime: 0.01)
                usleep(10_000)
            }
            track.stop()
            if let printer { LiveSession.stop(engine, printer: printer) }
        }
        let underruns = engine.musicStats.underruns
        if underruns > 0 { note("earshot: \(underruns) music underrun(s)") }
        // The end event arrives on a Dispatch queue; give it a moment.
        for _ in 0..<100 where lastEnd.value == nil { usleep(2_000) }
        guard let end = lastEnd.value, end.reason == .failed else { return nil }
        return end.error?.description ?? "\(file): the track failed"
    }

    /// Renders 10 ms blocks until the track ends or `--seconds` have been written.
    private func renderOffline(engine: AudioEngine, track: MusicTrack, to path: String) throws -> Int {
        let limit = seconds.map { Int(($0 * Double(rate)).rounded()) } ?? Int.max
        let writer = try AudioFileWriter(path: path, sampleRate: rate, channels: engine.outputChannels,
                                         expectedFrames: seconds.map { _ in limit })
        let block = max(1, rate / 100)
        var buffer = [Float](repeating: 0, count: block * engine.outputChannels)
        var done = 0
        while done < limit, track.isPlaying {
            let n = min(block, limit - done)
            try buffer.withUnsafeMutableBufferPointer { buf in
                let slice = UnsafeMutableBufferPointer(rebasing: buf[0..<(n * engine.outputChannels)])
                try engine.render(into: slice)
                try writer.write(UnsafeBufferPointer(slice))
            }
            done += n
            if track.failure != nil { break }
        }
        // A track that failed part-way leaves no file (a short or silent WAV would lie).
        if let error = track.failure {
            writer.discard()
            throw error
        }
        try writer.close()
        return done
    }
}
