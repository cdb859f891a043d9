import Earshot
import Foundation

/// The rooms in the monitor's view: each ringing room's reverb (``MonitorFrame/roomReverbs``) on
/// one line, and each positioned voice's way through the rooms after what it plays.
extension MonitorView {
    /// `rooms: west −0.0 dB around · east −6.0 dB from door (right 90°)`; nil with no geometry.
    static func roomReverbLine(_ rows: [MonitorFrame.RoomReverbRow]?) -> String? {
        guard let rows else { return nil }
        guard !rows.isEmpty else { return "rooms: no reverb rings" }
        return "rooms: " + rows.map { r in
            let level = decibels(r.levelDB) + " dB"
            let from = r.via == "listener" ? "around" : r.portal.map { "from \($0)" } ?? "through walls"
            return "\(r.room) \(level) \(from)" + (r.azimuth.map { " (\(side($0)))" } ?? "")
        }.joined(separator: " · ")
    }

    /// `right 90°`, `left 30°`, `ahead 0°`, `behind 180°`.
    static func side(_ azimuth: Double) -> String {
        let a = abs(azimuth)
        let word = a < 15 ? "ahead" : a > 165 ? "behind" : azimuth > 0 ? "right" : "left"
        return String(format: "%@ %.0f°", word, a)
    }

    /// A voice's way through the rooms, after what it plays: `[east via door 6.3 m diff −2.1 open −0.0 walls −30.0]`.
    static func way(_ v: MonitorFrame.VoiceRow) -> String {
        guard let r = v.room else { return "" }
        let room = r.room ?? "outside"
        switch r.via {
        case "direct": return " [\(room)]"
        case "portals":
            return " [\(room) via \(r.path.joined(separator: ">")) " + String(format: "%.1f m", r.length)
                + " diff \(decibels(r.diffractionDB)) open \(decibels(r.opennessDB)) walls \(decibels(r.transmissionDB))]"
        default: return " [\(room) through walls " + String(format: "%.1f m ", r.length) + decibels(r.transmissionDB) + " dB]"
        }
    }

    /// One decimal, without a negative zero.
    static func decibels(_ x: Double) -> String { String(format: "%.1f", x + 0) }
}
