@testable import Earshot
import XCTest

/// Issue 23 item 5: a play into a full pool finds its victim in a heap instead of a scan of the
/// pool; the victim must be exactly the one the scan (the stealing rule: priority, audibility,
/// age) would pick. Random plays, updates, stops, pauses and priority changes on a loopback
/// engine; before each play into the full pool the scan's answer is taken, and after it that
/// voice — and only that one — must have been evicted.
final class EvictionOrderTests: XCTestCase {
    func testTheHeapEvictsExactlyTheVoiceTheScanWouldPick() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 4, virtualVoices: 60)
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
        var random = SplitMix64(seed: 23)
        func unit() -> Float { Float(random.nextUnit()) }
        var voices: [Voice] = []
        var checked = 0, refused = 0
        for step in 0..<3_000 {
            switch random.next() % 20 {
            case 0:
                e.update()
                _ = try e.render(frames: 256)
            case 1 where !voices.isEmpty:
                voices[Int(random.next() % UInt64(voices.count))].stop()
            case 2 where !voices.isEmpty:
                e.setPriority(UInt8(100 + random.next() % 8), of: voices[Int(random.next() % UInt64(voices.count))])
            case 3 where !voices.isEmpty:
                e.setPaused(random.next() % 2 == 0, of: voices[Int(random.next() % UInt64(voices.count))])
            default:
                let full = e.withAL { e.core.pool.liveCount == e.core.pool.capacity }
                let expected: VoiceID? = e.withAL {
                    guard full, let i = e.core.pool.worstVirtualByScan() else { return nil }
                    return VoiceID(index: UInt32(i), generation: e.core.pool.slots[i].generation)
                }
                let evictionsBefore = e.stats.evictions
                var options = PlayOptions(gain: 0.05 + unit(), loop: true, priority: UInt8(100 + random.next() % 8))
                if random.next() % 2 == 0 { options.placement = .spatial(SpatialProperties(position: Vector3(unit() * 40 - 20, 0, -1))) }
                let v = try e.play(tone, options: options)
                if v.status == .refused { refused += 1 } else { voices.append(v) }
                if full, let expected {
                    if e.stats.evictions > evictionsBefore {
                        let victimStatus = e.withAL { e.core.pool.status(expected, now: e.core.now) }
                        XCTAssertEqual(victimStatus, .stopped, "step \(step): the scan's worst virtual voice was evicted")
                        checked += 1
                    } else {
                        XCTAssertEqual(v.status, .refused, "step \(step): no eviction means a refusal")
                    }
                }
                if voices.count > 400 { voices.removeFirst(200) }
            }
        }
        print("EvictionOrderTests: \(checked) evictions checked against the scan, \(refused) refusals")
        XCTAssertGreaterThan(checked, 300, "the full-pool path was exercised")
        XCTAssertGreaterThan(refused, 10, "and the refusal path")
    }
}
