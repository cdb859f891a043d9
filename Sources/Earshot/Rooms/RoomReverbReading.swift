/// One room whose reverb rings now, as the listener hears it: what the rooms let the monitor
/// read of their reverbs (``RoomStage/ringingReverbs()``), plain values copied out under the AL
/// lock. The rooms keep the tables; a reader gets these.
struct RoomReverbReading: Equatable {
    enum Heard: String {
        /// The listener's own room: its reverb is a zone on the room's box, all around.
        case around
        /// Another room, heard from the opening of ``RoomReverbReading/portal``.
        case portal
        /// Another room heard through its walls (no open portal path), from its nearest voice.
        case walls
    }

    /// The room's id.
    var room: String
    var heard: Heard
    /// The portal it is heard from (nil: ``Heard/around`` or ``Heard/walls``).
    var portal: String?
    /// What the listener hears of it, dB (≤ 0): for another room the level of its nearest
    /// voice's way — the propagation filter's gain on that voice's sends (diffraction × openness
    /// through portals, the walls' loss through walls), as applied (gliding) —; for the
    /// listener's room 0 (the environment weighs it as a zone).
    var levelDB: Float
    /// Where it is heard from in the listener's EAX frame (right, up, ahead): length 0 all
    /// around, 1 a point.
    var pan: Vector3
}
