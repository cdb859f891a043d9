import Earshot
import EarshotContent
import Foundation

/// The rooms' structure-aware fuzzer (issue 38): starts from a valid house (three rooms, a
/// corridor, a nested closet, portals between them and to the outside) and mutates its fields
/// — a centre, a size, a turn, a priority, a wall, a portal's rooms, rectangle, normal or
/// openness; ids duplicated or unknown; values at and past their limits, NaN, infinities,
/// huge — then checks, for each case:
/// - the scene text with those `rooms:`/`portals:` keys: `validate` (the parser) and the engine
///   (``AudioEngine/setGeometry(_:)``) agree on whether it is valid;
/// - a geometry the engine refuses throws ``EarshotError/invalidArgument(_:)`` and changes
///   nothing; one it takes renders voices anywhere (inside, on walls, outside, far away) while
///   doors ramp, with finite output within full scale and finite propagation figures.
///
/// ```swift
/// let report = RoomGeometryFuzzer(seed: 38).run(cases: 50)
/// print(report.summary)
/// ```
public struct RoomGeometryFuzzer {
    public struct Report: FuzzReport {
        public var cases = 0, findings: [String] = [], seconds = 0.0
        public var valid = 0, refused = 0, rendered = 0
        public var summary: String {
            "rooms fuzz: \(cases) cases, \(valid) valid, \(refused) refused, \(rendered) rendered, \(findings.count) findings, \(String(format: "%.1f", seconds)) s"
        }
    }

    public var seed: UInt64
    public init(seed: UInt64) { self.seed = seed }

    /// The valid house every case mutates.
    public static let house = AcousticGeometry(
        rooms: [Room(id: "living", min: Vector3(0, 0, 0), max: Vector3(6, 3, 6), walls: .concrete),
                Room(id: "kitchen", min: Vector3(6, 0, 0), max: Vector3(10, 3, 6), walls: .wood),
                Room(id: "corridor", min: Vector3(0, 0, 6), max: Vector3(10, 3, 8), walls: Walls(loss: 25, hf: 0.2)),
                Room(id: "closet", min: Vector3(4, 0, 4), max: Vector3(6, 3, 6), walls: .curtain, priority: 1)],
        portals: [Portal(id: "door", between: "living", and: "kitchen", center: Vector3(6, 1, 1), width: 1, height: 2,
                         normal: Vector3(1, 0, 0)),
                  Portal(id: "arch", between: "living", and: "corridor", center: Vector3(2, 1.25, 6), width: 1.5, height: 2.5,
                         normal: Vector3(0, 0, 1)),
                  Portal(id: "kdoor", between: "kitchen", and: "corridor", center: Vector3(8, 1, 6), width: 1, height: 2,
                         normal: Vector3(0, 0, 1), openness: 0.5),
                  Portal(id: "front", between: "living", and: nil, center: Vector3(3, 1, 0), width: 1, height: 2,
                         normal: Vector3(0, 0, 1), openness: 0)])

    public func run(cases: Int, seconds: Double = .infinity, log: ((String) -> Void)? = nil) -> Report {
        let engine = try? AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
        defer { engine?.shutdown() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rooms-fuzz-\(getpid())-\(seed)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        guard let engine else { return Report(findings: ["no loopback engine"]) }
        return FuzzDriver(seed: seed, logEvery: 100).run(Report(), cases: cases, seconds: seconds, log: log) { i, g, report in
            var geometry = Self.house
            for _ in 0..<(1 + Int(g.next() % 3)) { Self.mutate(&geometry, &g) }
            let engineSays: Bool
            do {
                try engine.setGeometry(geometry)
                engineSays = true
            } catch {
                engineSays = false
                if case EarshotError.invalidArgument = error {} else { report.findings.append("case \(i): \(error), not invalidArgument") }
            }
            // The scene text: the parser must agree (numbers it cannot write, NaN and infinities, are skipped).
            if let yaml = Self.yaml(geometry) {
                let path = folder.appendingPathComponent("case.yaml").path
                try? yaml.write(toFile: path, atomically: true, encoding: .utf8)
                let parserSays: Bool
                if case .success = Scene.check(path: path) { parserSays = true } else { parserSays = false }
                if parserSays != engineSays {
                    report.findings.append("case \(i): validate says \(parserSays), the engine \(engineSays):\n\(yaml)")
                }
            }
            guard engineSays else {
                report.refused += 1
                return
            }
            report.valid += 1
            if engine.geometry.rooms != geometry.rooms { report.findings.append("case \(i): the engine keeps other rooms") }
            // Voices anywhere, doors ramping, the listener walking.
            guard let clip = try? engine.loadClip(Self.tone, name: "tone") else { return }
            var voices: [Voice] = []
            for _ in 0..<4 {
                let p = Vector3(Float(g.nextUnit() * 14 - 2), Float(g.nextUnit() * 4 - 0.5), Float(g.nextUnit() * 12 - 2))
                if let v = try? engine.play(clip, options: .init(loop: true, position: p)) { voices.append(v) }
            }
            for p in geometry.portals where g.next() % 2 == 0 {
                try? engine.setPortalOpenness(p.id, to: Float(g.nextUnit()), ramp: g.nextUnit() * 0.05)
            }
            for step in 0..<4 {
                var l = engine.listener
                l.position = Vector3(Float(g.nextUnit() * 12 - 1), 1.7, Float(g.nextUnit() * 10 - 1))
                engine.listener = l
                engine.update()
                guard let out = try? engine.render(frames: 480) else {
                    report.findings.append("case \(i): render failed")
                    break
                }
                if let bad = out.first(where: { !$0.isFinite || abs($0) > 1 }) {
                    report.findings.append("case \(i) step \(step): sample \(bad)")
                    break
                }
                for v in voices {
                    if let p = engine.propagation(of: v),
                       !(p.length.isFinite && p.diffractionDB.isFinite && p.transmissionDB.isFinite && p.opennessDB.isFinite) {
                        report.findings.append("case \(i): propagation \(p)")
                    }
                }
            }
            report.rendered += 1
            for v in voices { v.stop() }
            engine.update()
            _ = try? engine.render(frames: 480)
            engine.unload(clip)
            try? engine.setGeometry(.empty)
        }
    }

    /// 0.1 s of a 440 Hz tone at half scale.
    static let tone: PCMAudio = PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16((0..<4_800).map {
        Int16(16_000 * sin(2 * Double.pi * 440 * Double($0) / 48_000))
    }))

    /// Numbers at and around the edges: limits, just past them, zero, negative, non-finite, huge.
    static func edgy(_ g: inout SplitMix64, around v: Float) -> Float {
        let picks: [Float] = [0, -v, v * 2, v + 0.29, v + 0.31, 1e6, 1e6 + 1, -1e6, 1e-7, .nan, .infinity, -.infinity, 120, 121, 360, 361, 1000, 1001]
        return g.next() % 3 == 0 ? picks[Int(g.next() % UInt64(picks.count))] : v + Float(g.nextUnit() * 2 - 1)
    }

    static func mutate(_ geo: inout AcousticGeometry, _ g: inout SplitMix64) {
        let r = Int(g.next() % UInt64(geo.rooms.count)), p = Int(g.next() % UInt64(geo.portals.count))
        switch g.next() % 16 {
        case 0: geo.rooms[r].center.x = edgy(&g, around: geo.rooms[r].center.x)
        case 1: geo.rooms[r].size.z = edgy(&g, around: geo.rooms[r].size.z)
        case 2: geo.rooms[r].rotation = edgy(&g, around: 45)
        case 3: geo.rooms[r].priority = [0, 1, -1, 1000, 1001, Int.max][Int(g.next() % 6)]
        case 4: geo.rooms[r].walls = Walls(loss: edgy(&g, around: 20), hf: edgy(&g, around: 0.5))
        case 5: geo.rooms[r].id = ["", "outside", geo.rooms[(r + 1) % geo.rooms.count].id, String(repeating: "x", count: 300), "new"][Int(g.next() % 5)]
        case 6: geo.portals[p].center.y = edgy(&g, around: geo.portals[p].center.y)
        case 7: geo.portals[p].center.x = edgy(&g, around: geo.portals[p].center.x)
        case 8: geo.portals[p].width = edgy(&g, around: 1)
        case 9: geo.portals[p].normal = [Vector3.zero, Vector3(0, 1, 0), Vector3(1, 1, 0), Vector3(.nan, 0, 0), Vector3(1e30, 0, 0)][Int(g.next() % 5)]
        case 10: geo.portals[p].openness = edgy(&g, around: 0.5)
        case 11: geo.portals[p].roomB = [nil, "nowhere", geo.portals[p].roomA, "corridor", "closet"][Int(g.next() % 5)]
        case 12: geo.portals[p].id = geo.portals[(p + 1) % geo.portals.count].id
        case 13: geo.rooms.append(Room(id: "extra\(geo.rooms.count)", center: Vector3(Float(g.nextUnit() * 20), 1, 20), size: Vector3(2, 3, 2)))
        case 14: geo.portals.append(Portal(id: "p\(geo.portals.count)", between: "corridor", and: "closet", center: Vector3(5, 1, 6),
                                           width: 0.8, height: 2, normal: Vector3(0, 0, 1), openness: Float(g.nextUnit())))
        default: geo.rooms.remove(at: r)
        }
    }

    /// The geometry as a scene's keys, or nil when a number cannot be written (NaN, infinity).
    static func yaml(_ geo: AcousticGeometry) -> String? {
        func n(_ v: Float) -> String? { v.isFinite ? "\(v)" : nil }
        func vec(_ v: Vector3) -> String? {
            guard let x = n(v.x), let y = n(v.y), let z = n(v.z) else { return nil }
            return "[\(x), \(y), \(z)]"
        }
        func quoted(_ s: String) -> String { "\"" + s + "\"" }
        var out = "duration: 1\nrooms:\n"
        for r in geo.rooms {
            guard let c = vec(r.center), let s = vec(r.size), let rot = n(r.rotation), let loss = n(r.walls.loss), let hf = n(r.walls.hf)
            else { return nil }
            out += "  \(quoted(r.id)): { box: { center: \(c), size: \(s) }, rotation: \(rot), walls: { loss: \(loss), hf: \(hf) }, priority: \(r.priority) }\n"
        }
        out += "portals:\n"
        for p in geo.portals {
            guard let c = vec(p.center), let nrm = vec(p.normal), let w = n(p.width), let h = n(p.height), let o = n(p.openness) else { return nil }
            out += "  \(quoted(p.id)): { between: [\(quoted(p.roomA)), \(quoted(p.roomB ?? "outside"))], center: \(c), size: [\(w), \(h)], normal: \(nrm), open: \(o) }\n"
        }
        return out
    }
}
