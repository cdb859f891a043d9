import Earshot
import Foundation

/// The rooms on the plot's top-down map: each room's outline, each portal (green open, red shut
/// at the start), and each emitter's way to the listener at three moments.
extension LevelPlot {
    /// The x and z extents the rooms add to the map.
    static func roomBounds(_ g: AcousticGeometry) -> (xs: [Double], zs: [Double]) {
        var xs: [Double] = [], zs: [Double] = []
        for r in g.rooms {
            for c in roomCorners(r) { xs.append(Double(c.x)); zs.append(Double(c.z)) }
        }
        return (xs, zs)
    }

    /// The four corners of a room seen from above.
    static func roomCorners(_ r: Room) -> [Vector3] {
        let a = r.rotation * .pi / 180, c = cos(a), s = sin(a), hx = r.size.x / 2, hz = r.size.z / 2
        return [(-hx, -hz), (hx, -hz), (hx, hz), (-hx, hz)].map { (x, z) in
            r.center + Vector3(c * x + s * z, 0, -s * x + c * z)
        }
    }

    static func roomsLayer(_ scene: Scene, clock: Clock, px: (Vector3) -> (Double, Double)) -> String {
        let g = scene.geometry
        guard !g.isEmpty else { return "" }
        var out = ""
        for r in g.rooms {
            let pts = roomCorners(r).map { let (a, b) = px($0); return "\(f(a)),\(f(b))" }.joined(separator: " ")
            out += "<polygon class=\"room\" points=\"\(pts)\" fill=\"#f3efe6\" fill-opacity=\"0.6\" stroke=\"#8a7f6a\" stroke-width=\"1.5\"><title>room \(escape(r.id)): walls \(number(Double(r.walls.loss))) dB</title></polygon>\n"
        }
        for p in g.portals {
            let n = Vector3(p.normal.x, 0, p.normal.z)
            var u = Vector3(0, 1, 0).cross(n).normalized
            if u.length < 1e-3 { u = Vector3(1, 0, 0) }
            let (x1, y1) = px(p.center + u * (p.width / 2)), (x2, y2) = px(p.center - u * (p.width / 2))
            let colour = p.openness > 0 ? "#2a9d3a" : "#c0392b"
            out += "<line class=\"portal\" x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(colour)\" stroke-width=\"4\"><title>portal \(escape(p.id)) open \(number(Double(p.openness)))</title></line>\n"
        }
        // Each emitter's way to the listener at the start, the middle and the end.
        for e in scene.emitters.prefix(maxMapEmitters) {
            for k in 0...2 {
                let t = clock.scene(clock.total * Double(k) / 2)
                let way = g.route(from: e.path.position(at: t), to: scene.listener.listener(at: t).position)
                guard way.count > 2 else { continue }
                let pts = way.map { let (a, b) = px($0); return "\(f(a)),\(f(b))" }.joined(separator: " ")
                out += "<polyline class=\"room-path\" fill=\"none\" stroke=\"#6a4c93\" stroke-width=\"1\" stroke-dasharray=\"4 3\" points=\"\(pts)\"><title>\(escape(e.id)) at \(number(t)) s: through the portals</title></polyline>\n"
            }
        }
        return out
    }
}
