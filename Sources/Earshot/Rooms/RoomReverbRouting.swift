#if canImport(Glibc)
import Glibc
#endif

/// Which other rooms' reverbs ring, which voices feed them and where the listener hears them
/// from (``RoomStage``, each frame with geometry; see "Each room's reverb" in the Rooms and
/// portals article).
///
/// A voice in a room that has a reverb and is not the listener's feeds that room's reverb
/// through a *channel* the host lends (``RoomHost/roomReverbChannels``: the voice's last zone
/// send goes to it), at its path's level (the propagation filter is on its sends). The rooms
/// nearest the listener ring: a room takes a free channel (one with no voice last frame, an
/// unused one first), or the channel of the farthest ringing room when its nearest voice's way
/// is shorter than ``takeOver`` × that room's; the others' voices feed only the listener's
/// zones. Each channel is heard from the opening of the last portal on its nearest voice's way
/// as the listener sees it (through walls: from the voice), focused as zones are
/// (``ZoneBlend``): `1 − (2/π)·atan(r / d)`, `r` the opening's half-diagonal.
///
/// Allocates only when the geometry is set.
struct RoomReverbRouting {
    /// At most this many channels are used, whatever the host lends.
    static let maxChannels = 4
    /// The apparent radius of a room heard through its walls (no portal path), metres.
    static let wallRadius: Float = 2
    /// How much nearer (as a ratio of way lengths) a room must be to take a ringing room's channel.
    static let takeOver: Float = 0.8

    /// Per room index (the outside last): its channel (−1: none) and whether it has a reverb.
    private var roomChannel: [Int32]
    private var reverbs: [ReverbProperties?]
    /// Per channel: its room (−1: none), its voices this frame and the last, and where its
    /// first voice this frame was heard from (its last portal, or its position).
    private var channelRoom = [Int32](repeating: -1, count: maxChannels)
    private var voicesNow = [Int32](repeating: 0, count: maxChannels)
    private var voicesLast = [Int32](repeating: 0, count: maxChannels)
    private var portal = [Int32](repeating: -1, count: maxChannels)
    private var point = [Vector3](repeating: .zero, count: maxChannels)
    /// Per channel, the shortest way of its voices this frame; the nearest room without a channel.
    private var nearest = [Float](repeating: .infinity, count: maxChannels)
    private var waitingRoom: Int32 = -1
    private var waitingLength = Float.infinity
    /// Per channel, the heard level (dB) of its nearest voice this frame; and what the last
    /// frame rang (``reading(channel:)``): its room (−1: none), level, portal and pan.
    private var level = [Float](repeating: 0, count: maxChannels)
    private var rangRoom = [Int32](repeating: -1, count: maxChannels)
    private var rangLevel = [Float](repeating: 0, count: maxChannels)
    private var rangPortal = [Int32](repeating: -1, count: maxChannels)
    private var rangPan = [Vector3](repeating: .zero, count: maxChannels)

    init(geometry g: AcousticGeometry) {
        roomChannel = [Int32](repeating: -1, count: g.rooms.count + 1)
        reverbs = g.rooms.map(\.reverb) + [nil]
    }

    /// The channel of the voice whose propagation is `r`, at `e` and heard at `levelDB` (its
    /// propagation filter's gain now; −1: none), with `channels` lent.
    @inline(__always)
    mutating func channel(for r: PropagationResult, at e: Vector3, levelDB: Float, channels: Int) -> Int {
        let room = Int(r.emitterRoom)
        guard r.kind != .direct, room >= 0, room < reverbs.count, reverbs[room] != nil else { return -1 }
        var c = Int(roomChannel[room])
        if c < 0 || c >= channels {
            c = -1
            for pass in 0..<2 where c < 0 {
                for k in 0..<channels where voicesNow[k] == 0 && voicesLast[k] == 0 && (pass == 1 || channelRoom[k] < 0) {
                    if channelRoom[k] >= 0 { roomChannel[Int(channelRoom[k])] = -1 }
                    channelRoom[k] = Int32(room)
                    roomChannel[room] = Int32(k)
                    c = k
                    break
                }
            }
            guard c >= 0 else {
                if r.length < waitingLength {
                    waitingRoom = Int32(room)
                    waitingLength = r.length
                }
                return -1
            }
        }
        if r.length < nearest[c] {
            nearest[c] = r.length
            portal[c] = r.lastPortal
            point[c] = e
            level[c] = levelDB
        }
        voicesNow[c] += 1
        return c
    }

    /// After every voice: each channel with voices is set to its room's reverb, panned from the
    /// listener's view of its portal (the host sends it only when it changed).
    mutating func finish(graph: PortalGraph, listener: Listener, channels: Int, host: some RoomHost) {
        var frame: ZoneBlend.ListenerFrame?
        // A nearer room waiting takes the farthest ringing room's channel from the next frame.
        var far = -1
        if waitingRoom >= 0 {
            for k in 0..<channels where voicesNow[k] > 0 && (far < 0 || nearest[k] > nearest[far]) { far = k }
            if far >= 0, !(waitingLength < Self.takeOver * nearest[far]) { far = -1 }
        }
        forgetRang()
        for k in 0..<channels {
            defer { nearest[k] = .infinity }
            voicesLast[k] = voicesNow[k]
            guard voicesNow[k] > 0 else { continue }
            voicesNow[k] = 0
            guard let reverb = reverbs[Int(channelRoom[k])] else { continue }
            let f = frame ?? ZoneBlend.ListenerFrame(listener)
            frame = f
            let pan = Self.pan(of: k, graph: graph, listener: listener, frame: f, portal: portal[k], point: point[k])
            host.setRoomReverb(channel: k, reverb: reverb, pan: pan)
            rangRoom[k] = channelRoom[k]
            rangLevel[k] = level[k]
            rangPortal[k] = portal[k] >= 0 && Int(portal[k]) < graph.openings.count ? portal[k] : -1
            rangPan[k] = pan
        }
        if far >= 0 {
            roomChannel[Int(channelRoom[far])] = -1
            channelRoom[far] = waitingRoom
            roomChannel[Int(waitingRoom)] = Int32(far)
        }
        waitingRoom = -1
        waitingLength = .infinity
    }

    /// No channel rang (none lent this frame).
    mutating func forgetRang() {
        for k in 0..<Self.maxChannels { rangRoom[k] = -1 }
    }

    /// What channel `k` rang with in the last frame: its room's index, its nearest voice's heard
    /// level (dB), the portal it is heard from (−1: through the walls) and its pan; nil: silent.
    func reading(channel k: Int) -> (room: Int, levelDB: Float, portal: Int, pan: Vector3)? {
        guard k >= 0, k < Self.maxChannels, rangRoom[k] >= 0 else { return nil }
        return (Int(rangRoom[k]), rangLevel[k], Int(rangPortal[k]), rangPan[k])
    }

    /// Where channel `k`'s reverb comes from, in the listener's EAX frame.
    private static func pan(of k: Int, graph: PortalGraph, listener: Listener, frame: ZoneBlend.ListenerFrame,
                            portal: Int32, point: Vector3) -> Vector3 {
        var target = point, radius = wallRadius
        if portal >= 0, Int(portal) < graph.openings.count {
            let o = graph.openings[Int(portal)]
            target = o.center
            radius = (o.halfWidth * o.halfWidth + o.halfHeight * o.halfHeight).squareRoot()
        }
        let v = target - listener.position
        let d = v.length
        guard d > 1e-4 else { return .zero }
        let magnitude = 1 - 2 / Float.pi * atanf(radius / d)
        return frame.local(v * (1 / d)) * max(0, min(1, magnitude))
    }
}
