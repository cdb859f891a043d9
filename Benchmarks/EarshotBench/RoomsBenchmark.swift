import CAllocCounter
import Earshot
import Foundation

/// `earshot-bench rooms`: what rooms and portals cost an update (issue 38's bounds: 1,024
/// emitters in 32 rooms with 48 portals, everything moving, ≤ 0.5 ms of propagation per update
/// on one core; ≤ 2 % of a 60 Hz frame when nothing moves; 0 allocations per update).
///
/// 32 rooms of 10 × 10 m in an 8 × 4 grid, half of them with a reverb (the listener's heard as a
/// zone, two others through their doors), 48 doors between neighbours (1 m, off-centre);
/// 1,024 emitters spread over them, each with a looping voice (256 real, the rest virtual); the
/// listener walks. A frame: the game's moves (every emitter and the listener, or none),
/// `update()` (timed: thread CPU), an 800-frame render (untimed). The sides: no geometry and the
/// geometry, each moving and still; propagation's cost is the geometry side's update minus the
/// same side without geometry. Five rounds alternate the sides; the lowest of each is kept.
/// Allocations are counted (the CAllocCounter interposer) over the geometry sides' updates.
///
/// For profiling (valgrind): `ROOMS_ROUNDS=1` runs one round, `ROOMS_SIDES=1` only the listed
/// sides (0…3, in the order printed, comma-separated); `ROOMS_DRY=1` gives no room a reverb.
enum RoomsBenchmark {
    static let emitters = 1_024
    static let frames = 300

    static func geometry() -> AcousticGeometry {
        var rooms: [Room] = [], portals: [Portal] = []
        // Half the rooms ring (the listener's as a zone, two others through their doors).
        let hall = try? ReverbProperties.preset(named: "hallway")
        for i in 0..<8 { for j in 0..<4 {
            rooms.append(Room(id: "r\(i)_\(j)", min: Vector3(Float(i) * 10, 0, Float(j) * 10),
                              max: Vector3(Float(i + 1) * 10, 3, Float(j + 1) * 10),
                              reverb: ProcessInfo.processInfo.environment["ROOMS_DRY"] == nil && (i + j) % 2 == 0 ? hall : nil, walls: .wood))
        } }
        for i in 0..<7 { for j in 0..<4 {
            portals.append(Portal(id: "x\(i)_\(j)", between: "r\(i)_\(j)", and: "r\(i + 1)_\(j)",
                                  center: Vector3(Float(i + 1) * 10, 1, Float(j) * 10 + 3), width: 1, height: 2, normal: Vector3(1, 0, 0)))
        } }
        for i in 0..<8 { for j in 0..<3 where portals.count < 48 {
            portals.append(Portal(id: "z\(i)_\(j)", between: "r\(i)_\(j)", and: "r\(i)_\(j + 1)",
                                  center: Vector3(Float(i) * 10 + 7, 1, Float(j + 1) * 10), width: 1, height: 2, normal: Vector3(0, 0, 1)))
        } }
        return AcousticGeometry(rooms: rooms, portals: portals)
    }

    static func run(_ arguments: [String]) throws {
        let names = ["no geometry, moving", "geometry, moving", "no geometry, still", "geometry, still"]
        var best = [Double](repeating: .infinity, count: names.count)
        var allocations: UInt64 = 0
        let counting = earshot_alloc_counter_active() != 0
        let env = ProcessInfo.processInfo.environment
        let rounds = max(1, min(5, Int(env["ROOMS_ROUNDS"] ?? "") ?? 5))
        let sides = env["ROOMS_SIDES"].map { $0.split(separator: ",").compactMap { Int($0) }.filter(names.indices.contains) }
            ?? Array(names.indices)
        for _ in 0..<rounds {
            for side in sides {
                let (cpu, allocs) = try measure(geometry: side % 2 == 1, moving: side < 2)
                best[side] = min(best[side], cpu)
                if side % 2 == 1 { allocations += allocs }
            }
        }
        let perFrame = best.map { $0 / Double(frames) * 1e6 }
        print("rooms: \(emitters) emitters in 32 rooms with 48 portals, 48 kHz loopback, \(frames) frames, update thread CPU, lowest of \(rounds) rounds:")
        for (i, n) in names.enumerated() { print(String(format: "  %@  %8.1f µs per update", n.padding(toLength: 20, withPad: " ", startingAt: 0), perFrame[i])) }
        print(String(format: "propagation, everything moving: %.1f µs per update (bound 500 µs)", perFrame[1] - perFrame[0]))
        print(String(format: "propagation, nothing moving: %.1f µs per update = %.2f %% of a 60 Hz frame (bound 2 %%)",
                     perFrame[3] - perFrame[2], (perFrame[3] - perFrame[2]) / 16_667 * 100))
        print(counting ? "allocations in the geometry sides' updates: \(allocations) (\(rounds * sides.filter { $0 % 2 == 1 }.count * frames / 2) updates)"
                       : "allocations: not counted (the interposer is not this process's malloc)")
    }

    /// (update thread CPU seconds, allocations in the updates) for one side.
    static func measure(geometry withGeometry: Bool, moving: Bool) throws -> (Double, UInt64) {
        var config = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000))
        config.maxRealVoices = 256
        config.maxVirtualVoices = 2_048
        let e = try AudioEngine(configuration: config)
        defer { e.shutdown() }
        if withGeometry { try e.setGeometry(geometry()) }
        let samples = (0..<4_800).map { Int16((0.01 * 32767 * sin(2 * .pi * 220 * Double($0) / 48_000)).rounded()) }
        let clip = try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(samples)), name: "loop")
        var g = SplitMix64(seed: 38)
        var handles: [Emitter] = [], positions: [Vector3] = []
        for _ in 0..<emitters {
            let p = Vector3(Float(g.nextUnit() * 80), 1.5, Float(g.nextUnit() * 40))
            let em = try e.makeEmitter(SpatialProperties(position: p))
            _ = try e.play(clip, options: .init(loop: true, emitter: em))
            handles.append(em)
            positions.append(p)
        }
        var listener = Listener(position: Vector3(35, 1.7, 15))
        e.listener = listener
        e.update()
        _ = try e.render(frames: 800)
        var cpu = 0.0
        var allocs: UInt64 = 0
        for f in 0..<frames {
            if moving {
                let t = Float(f) / 60
                for k in handles.indices {
                    handles[k].position = positions[k] + Vector3(sin(t + Float(k)) * 0.8, 0, cos(t + Float(k)) * 0.8)
                }
                listener.position = Vector3(35 + 20 * sin(t * 0.3), 1.7, 15 + 4 * cos(t * 0.3))
                e.listener = listener
            }
            if f == frames / 2 { earshot_alloc_counting(1) }
            let before = earshot_alloc_count()
            let t0 = Clocks.threadCPU()
            e.update()
            cpu += Clocks.threadCPU() - t0
            if f >= frames / 2 { allocs += earshot_alloc_count() - before }
            _ = try e.render(frames: 800)
        }
        earshot_alloc_counting(0)
        return (cpu, allocs)
    }
}
