#if canImport(Glibc)
import Glibc
#endif

extension MonitorFrame {
    /// One room whose reverb rings now, as the listener hears it (``MonitorFrame/roomReverbs``).
    ///
    /// ```swift
    /// func nextRooms(_ frame: MonitorFrame) -> [String] {
    ///     (frame.roomReverbs ?? []).filter { $0.via == "portal" }.map { "\($0.room) from \($0.portal ?? "?")" }
    /// }
    /// ```
    public struct RoomReverbRow: Codable, Sendable, Equatable {
        /// The room's id.
        public var room: String
        /// `listener` (the room the listener is in: its reverb all around), `portal` (another
        /// room, heard from the opening of ``portal``) or `walls` (another room with no portal
        /// way, heard through its walls from its nearest voice).
        public var via: String
        /// The portal it is heard from (absent unless ``via`` is `portal`).
        public var portal: String?
        /// What the listener hears of it, dB (≤ 0, floored at ``MonitorProtocol/silenceDecibels``):
        /// for another room, the level of the way to its nearest voice — the propagation
        /// filter's gain on that voice's sends (diffraction and openness through portals, the
        /// walls' loss through walls), which its reverb returns at; for the listener's room,
        /// the gain of its zone on the send it holds.
        public var levelDB: Double
        /// Where it is heard from in the listener's frame, [right, up, ahead] (EAX's reverb
        /// pan): length 0 all around, 1 a point.
        public var pan: [Double]
        /// The pan's direction, degrees clockwise from ahead (90: right, −90: left); absent when
        /// it is all around (a pan shorter than 0.01).
        public var azimuth: Double?

        init(_ r: RoomReverbReading) {
            room = r.room
            via = r.heard == .around ? "listener" : r.heard.rawValue
            portal = r.portal
            levelDB = r.levelDB.isFinite ? max(MonitorProtocol.silenceDecibels, min(0, Double(r.levelDB))) : MonitorProtocol.silenceDecibels
            let p = [r.pan.x, r.pan.y, r.pan.z].map { $0.isFinite ? Double(max(-1, min(1, $0))) : 0 }
            pan = p
            let horizontal = (p[0] * p[0] + p[2] * p[2]).squareRoot()
            azimuth = horizontal < 0.01 ? nil : atan2(p[0], p[2]) * 180 / .pi
        }
    }
}
