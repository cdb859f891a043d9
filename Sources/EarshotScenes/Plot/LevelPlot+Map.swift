import Earshot
import Foundation

/// The plot's top-down map: the listener's and emitters' paths (colour by time), the reverb
/// zones, the rooms and portals with the emitters' ways (LevelPlot+Rooms.swift), and where the listener faces.
extension LevelPlot {
    /// Top-down: x to the right, −z (the default listener's front) up.
    /// The paths are drawn over the plot's stretch of the scene (a section's, for a section);
    /// colour and tooltips go by render time, labels by scene time.
    static func mapPanel(_ scene: Scene, clock: Clock, top panelTop: Double, height: Double) -> String {
        let top = panelTop + 30, plotH = height - 30 - 20
        let total = clock.total
        let drawn = Array(scene.emitters.prefix(maxMapEmitters))
        func samples(_ path: ScenePath) -> [(Double, Vector3)] {
            (0...mapSamples).map { i in
                let t = total * Double(i) / Double(mapSamples); return (t, path.position(at: clock.scene(t)))
            }
        }
        let listener = samples(scene.listener.path)
        let emitters = drawn.map { ($0.id, samples($0.path)) }
        var xs = listener.map { Double($0.1.x) } + emitters.flatMap { $0.1.map { Double($0.1.x) } }
        var zs = listener.map { Double($0.1.z) } + emitters.flatMap { $0.1.map { Double($0.1.z) } }
        for zone in scene.zones {
            switch zone.shape {
            case .sphere(let c, let r):
                xs += [Double(c.x - r), Double(c.x + r)]; zs += [Double(c.z - r), Double(c.z + r)]
            case .box(let c, let s):
                xs += [Double(c.x - s.x / 2), Double(c.x + s.x / 2)];
                zs += [Double(c.z - s.z / 2), Double(c.z + s.z / 2)]
            }
        }
        let rooms = roomBounds(scene.geometry)
        xs += rooms.xs
        zs += rooms.zs
        let minX = (xs.min() ?? -1) - 1, maxX = (xs.max() ?? 1) + 1, minZ = (zs.min() ?? -1) - 1,
            maxZ = (zs.max() ?? 1) + 1
        let scale = min(plotW / (maxX - minX), plotH / (maxZ - minZ))
        let ox = left + (plotW - (maxX - minX) * scale) / 2, oy = top + (plotH - (maxZ - minZ) * scale) / 2
        func px(_ v: Vector3) -> (Double, Double) {
            (ox + (Double(v.x) - minX) * scale, oy + (Double(v.z) - minZ) * scale)
        }
        func colour(_ t: Double) -> String {
            // Blue (start) to red (end).
            let hue = 240 * (1 - min(max(t / max(total, 1e-9), 0), 1))
            return "hsl(\(Int(hue)),70%,45%)"
        }
        var out =
            "<g class=\"map\">\n<text x=\"\(f(left))\" y=\"\(f(panelTop + 18))\" font-size=\"13\">top-down map (x right, −z up; colour: time, blue → red"
            + (clock.start > 0 ? ", \(number(clock.start))–\(number(clock.scene(total))) s; " : "; ")
            + "\(f(1 / scale * 100)) m per 100 px)</text>\n"
        out +=
            "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotW))\" height=\"\(f(plotH))\" fill=\"none\" stroke=\"#ddd\"/>\n"
        for zone in scene.zones {
            switch zone.shape {
            case .sphere(let c, let r):
                let (cx, cy) = px(c)
                out +=
                    "<circle class=\"zone\" cx=\"\(f(cx))\" cy=\"\(f(cy))\" r=\"\(f(Double(r) * scale))\" fill=\"#cfe8ff\" fill-opacity=\"0.5\" stroke=\"#7fb3e0\"><title>zone \(escape(zone.name))</title></circle>\n"
            case .box(let c, let s):
                let (x0, y0) = px(Vector3(c.x - s.x / 2, 0, c.z - s.z / 2))
                out +=
                    "<rect class=\"zone\" x=\"\(f(x0))\" y=\"\(f(y0))\" width=\"\(f(Double(s.x) * scale))\" height=\"\(f(Double(s.z) * scale))\" fill=\"#cfe8ff\" fill-opacity=\"0.5\" stroke=\"#7fb3e0\"><title>zone \(escape(zone.name))</title></rect>\n"
            }
        }
        out += roomsLayer(scene, clock: clock, px: px)
        func path(_ name: String, _ points: [(Double, Vector3)], width: Double) -> String {
            var s = ""
            let segments = 24
            let per = max(1, points.count / segments)
            var i = 0
            while i < points.count - 1 {
                let j = min(points.count - 1, i + per)
                let pts = points[i...j].map { p in
                    let (a, b) = px(p.1); return "\(f(a)),\(f(b))"
                }.joined(separator: " ")
                s +=
                    "<polyline class=\"map-path\" data-name=\"\(escape(name))\" fill=\"none\" stroke=\"\(colour(points[i].0))\" stroke-width=\"\(width)\" points=\"\(pts)\"/>\n"
                i = j
            }
            let (sx, sy) = px(points[0].1)
            s +=
                "<circle cx=\"\(f(sx))\" cy=\"\(f(sy))\" r=\"3\" fill=\"\(colour(0))\"/><text x=\"\(f(sx + 5))\" y=\"\(f(sy - 5))\" fill=\"#333\">\(escape(name))</text>\n"
            return s
        }
        for (id, points) in emitters { out += path(id, points, width: 1.5) }
        out += path("listener", listener, width: 3)
        // Where the listener faces, at eleven moments.
        for i in 0...10 {
            let t = total * Double(i) / 10
            let l = scene.listener.listener(at: clock.scene(t))
            let (ax, ay) = px(l.position)
            let d = Vector3(l.at.x, 0, l.at.z)
            guard d.length > 1e-6 else { continue }
            let u = d * (1 / d.length)
            let bx = ax + Double(u.x) * 18, by = ay + Double(u.z) * 18
            out +=
                "<line class=\"facing\" x1=\"\(f(ax))\" y1=\"\(f(ay))\" x2=\"\(f(bx))\" y2=\"\(f(by))\" stroke=\"\(colour(t))\" stroke-width=\"2\"><title>\(number(clock.scene(t))) s: facing</title></line>\n"
        }
        if scene.emitters.count > drawn.count {
            out +=
                "<text x=\"\(f(left + 4))\" y=\"\(f(top + plotH - 6))\" fill=\"#666\">and \(scene.emitters.count - drawn.count) more emitters not drawn</text>\n"
        }
        return out + "</g>\n"
    }
}
