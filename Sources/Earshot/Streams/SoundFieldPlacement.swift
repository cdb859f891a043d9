#if canImport(Glibc)
import Glibc
#endif

/// How a stream that is a sound field around the listener (an ambisonic bed, Beds/) is placed:
/// turned as a whole, every game frame, by its own yaw, pitch and roll and — world-locked — against
/// the listener's turns. Shared by every part of the field's stream (the one B-format source, or
/// the virtual loudspeakers' mono sources); touched only under the stream lock.
///
/// The frame is OpenAL's: +x right, +y up, −z ahead. Yaw turns about +y (positive: the
/// recording's front turns to the left, counter-clockwise seen from above), pitch about +x
/// (positive: its front tilts up), roll about +z (positive: its up tilts to the left); applied
/// roll first, then pitch, then yaw.
final class SoundFieldPlacement: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written under the stream system's lock.

    /// The parts carry first-order FuMa B-format (W X Y Z) on one source, turned by OpenAL
    /// through `AL_ORIENTATION`; false: the parts are virtual loudspeakers placed at their
    /// ``QueuedStream/speaker`` direction turned by the field's rotation.
    let isBFormat: Bool
    /// Turns against the listener's turns (the world's north stays put); false: turns with the
    /// head.
    var worldLocked: Bool
    /// Yaw in degrees: a ramp on the stream clock (playback time, frozen while paused).
    var yaw: FadeState
    var pitch: Float
    var roll: Float

    init(isBFormat: Bool, worldLocked: Bool, yaw: Float, pitch: Float, roll: Float) {
        self.isBFormat = isBFormat
        self.worldLocked = worldLocked
        self.yaw = FadeState(from: yaw, to: yaw, start: 0, duration: 0, curve: .linear, stopsAtEnd: false)
        self.pitch = pitch
        self.roll = roll
    }

    /// Starts a yaw ramp from the yaw at `now` to `degrees` over `seconds` of playback.
    func rampYaw(to degrees: Float, seconds: Double, now: Double) {
        let current = yaw.volume(at: now).0
        yaw = FadeState(from: current, to: degrees, start: now, duration: max(0, seconds), curve: .linear, stopsAtEnd: false)
        if seconds <= 0 { yaw.from = degrees }
    }

    /// The rotation from the field's frame to the head's at `now`, given the listener's basis.
    func rotation(now: Double, listenerAt: Vector3, listenerUp: Vector3) -> FieldRotation {
        let own = FieldRotation(yaw: yaw.volume(at: now).0, pitch: pitch, roll: roll)
        return worldLocked ? FieldRotation.worldToHead(at: listenerAt, up: listenerUp) * own : own
    }
}

/// A 3 × 3 rotation (rows), applied to OpenAL-frame vectors.
struct FieldRotation: Equatable {
    var m: [Float]

    static let identity = FieldRotation(m: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    init(m: [Float]) { self.m = m }

    /// Roll about +z, then pitch about +x, then yaw about +y, in degrees (right-handed).
    init(yaw: Float, pitch: Float, roll: Float) {
        let (y, p, r) = (yaw * .pi / 180, pitch * .pi / 180, roll * .pi / 180)
        let ry = FieldRotation(m: [cosf(y), 0, sinf(y), 0, 1, 0, -sinf(y), 0, cosf(y)])
        let rx = FieldRotation(m: [1, 0, 0, 0, cosf(p), -sinf(p), 0, sinf(p), cosf(p)])
        let rz = FieldRotation(m: [cosf(r), -sinf(r), 0, sinf(r), cosf(r), 0, 0, 0, 1])
        self = ry * rx * rz
    }

    /// World → head for a listener facing `at` with `up` (both normalised here; `up` is made
    /// orthogonal to `at`): rows are the head's right, up and back axes in world coordinates.
    static func worldToHead(at: Vector3, up: Vector3) -> FieldRotation {
        let f = at.normalized
        var u = up - f * f.dot(up)
        u = u.length > 1e-6 ? u.normalized : Vector3(0, 1, 0)
        let r = f.cross(u).normalized
        return FieldRotation(m: [r.x, r.y, r.z, u.x, u.y, u.z, -f.x, -f.y, -f.z])
    }

    static func * (a: FieldRotation, b: FieldRotation) -> FieldRotation {
        var out = [Float](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 { for k in 0..<3 { out[i * 3 + j] += a.m[i * 3 + k] * b.m[k * 3 + j] } } }
        return FieldRotation(m: out)
    }

    func apply(_ v: Vector3) -> Vector3 {
        Vector3(m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z, m[6] * v.x + m[7] * v.y + m[8] * v.z)
    }
}
