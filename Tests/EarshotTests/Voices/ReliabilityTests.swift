@testable import Earshot
import COpenAL
import Foundation
import XCTest

/// Long runs and many threads: nothing leaks, nothing is lost or duplicated.
final class ReliabilityTests: XCTestCase {
    /// Resident set size of this process, in bytes.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    /// Live AL sources and buffers in the engine's context, counted by probing every small name.
    static func liveALObjects(_ e: AudioEngine) -> (sources: Int, buffers: Int) {
        e.context.withCurrent {
            var s = 0, b = 0
            for name in ALuint(1)...ALuint(20_000) {
                if alIsSource(name) != 0 { s += 1 }
                if alIsBuffer(name) != 0 { b += 1 }
            }
            return (s, b)
        }
    }

    /// `cycles` play/stop/steal cycles; `make soak` runs a million through the same code.
    static func soak(cycles: Int) throws -> (rssGrowth: Int, before: (Int, Int), after: (Int, Int), steals: Int, live: Int) {
        let e = try TestSignals.loopbackEngine {
            $0.maxRealVoices = 16
            $0.maxVirtualVoices = 256
        }
        defer { e.shutdown() }
        let short = try e.loadClip(TestSignals.sine(frequency: 500, seconds: 0.01), name: "short")
        let long = try e.loadClip(TestSignals.sine(frequency: 700, seconds: 0.2), name: "long")
        let before = liveALObjects(e)
        var out = [Float](repeating: 0, count: 128 * 2)
        var rssStart = 0
        for i in 0..<cycles {
            if i == min(20_000, cycles / 10) { rssStart = residentBytes() }
            let options = PlayOptions(gain: Float(i % 10) / 10, loop: i % 3 == 0, priority: UInt8((i * 37) % 256),
                                      position: Vector3(Float(i % 11) - 5, 0, -Float(i % 7) - 1))
            let v = try e.play(i % 2 == 0 ? short : long, options: options)
            if i % 3 != 1 { v.stop() }
            if i % 40 == 0 {
                e.update()
                try out.withUnsafeMutableBufferPointer { try e.render(into: $0) }
            }
        }
        e.stopAllVoices()
        for _ in 0..<4 {
            e.update()
            try out.withUnsafeMutableBufferPointer { try e.render(into: $0) }
        }
        let after = liveALObjects(e)
        return (residentBytes() - rssStart, before, after, e.stats.steals, e.activeVoiceCount)
    }

    func testSoakTwoHundredThousandCyclesStaysFlat() throws {
        // `make soak` sets EARSHOT_SOAK_CYCLES=1000000.
        let cycles = ProcessInfo.processInfo.environment["EARSHOT_SOAK_CYCLES"].flatMap(Int.init) ?? 200_000
        let r = try Self.soak(cycles: cycles)
        print("soak: \(cycles) cycles, RSS growth \(r.rssGrowth) bytes, AL sources \(r.before.0)→\(r.after.0), buffers \(r.before.1)→\(r.after.1), steals \(r.steals)")
        XCTAssertEqual(r.after.0, r.before.0, "AL sources")
        XCTAssertEqual(r.after.1, r.before.1, "AL buffers")
        XCTAssertEqual(r.before.1, 2)
        XCTAssertGreaterThan(r.steals, 100, "the soak must exercise stealing")
        XCTAssertEqual(r.live, 0)
        XCTAssertLessThan(r.rssGrowth, 8 << 20, "RSS grew by \(r.rssGrowth) bytes")
    }

    func testEightThreadsPlayStopAndSetWhileUpdating() throws {
        let e = try TestSignals.loopbackEngine {
            $0.maxRealVoices = 32
            $0.maxVirtualVoices = 100_000
        }
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.1), name: "tone")
        let threads = 8, perThread = 1_500
        let kept = Locked<[Voice]>([])
        let failures = Locked<[String]>([])
        let running = Atomic<Bool>(true)
        let renderer = Thread {
            var buffer = [Float](repeating: 0, count: 256 * 2)
            while running.load(ordering: .acquiring) {
                e.update()
                do { try buffer.withUnsafeMutableBufferPointer { try e.render(into: $0) } } catch {
                    failures.withLock { $0.append("render: \(error)") }
                }
            }
        }
        renderer.start()
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            var mine: [Voice] = []
            for i in 0..<perThread {
                do {
                    let v = try e.play(tone, options: .init(loop: true, priority: UInt8((t * 31 + i) % 256),
                                                            position: Vector3(Float(t), 0, -Float(i % 5) - 1)))
                    v.gain = 0.5
                    v.position = Vector3(Float(i % 3), 0, -2)
                    v.pitch = 1.5
                    if i % 2 == 0 { v.stop() } else { mine.append(v) }
                } catch {
                    failures.withLock { $0.append("play: \(error)") }
                }
            }
            kept.withLock { $0 += mine }
        }
        running.store(false, ordering: .releasing)
        while !renderer.isFinished { usleep(1_000) }
        let voices = kept.withLock { $0 }
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(Set(voices).count, voices.count, "a handle was handed out twice")
        XCTAssertEqual(voices.count, threads * perThread / 2)
        XCTAssertTrue(voices.allSatisfy(\.isPlaying), "a kept voice was lost")
        XCTAssertEqual(e.activeVoiceCount, voices.count)
        e.update()
        XCTAssertEqual(e.stats.realVoices, 32)
        for v in voices { v.stop() }
        e.update()
        _ = try e.render(frames: 1_024)
        e.update()
        XCTAssertEqual(e.activeVoiceCount, 0)
    }
}

import Synchronization
