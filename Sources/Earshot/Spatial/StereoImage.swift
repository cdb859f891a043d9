/// Where OpenAL Soft 1.19.1 puts the two channels of a stereo source it does not spatialise, and
/// the angles (`AL_STEREO_ANGLES`, radians counter-clockwise from ahead: left first) that put
/// them where the engine wants them.
///
/// 1.19.1 places a stereo buffer's channels at its stereo angles only when it does not
/// spatialise the source (`AL_SOURCE_SPATIALIZE_SOFT` auto, the default for stereo): no
/// distance, cone, Doppler or listener orientation applies then. Spatialised (`AL_TRUE`), both
/// channels go to the source's one direction at half gain each — the mean of the channels, the
/// fold to mono a clip loaded for positioning had. On stereo output without HRTF (its
/// "StereoPair" mode) it also widens angles in front: an unspatialised channel at azimuth `a`
/// (|a| ≤ 90°) is heard at `min(3|a|, 90°)`, a spatialised source at `min(1.5|a|, 90°)` (so the
/// default ±30° are hard left and right); HRTF and surround output use the angles as given.
enum StereoImage {
    /// OpenAL's default angles, ±30°: hard left and right on stereo output.
    static let defaultAngles: (left: Float, right: Float) = (.pi / 6, -.pi / 6)

    /// The balance law of a 2D stereo voice at `pan` (−1…1): the gains of its left and right
    /// channels. The side `pan` points to keeps its channel as recorded (1); the far side's
    /// channel is turned down linearly, `1 − |pan|` (−6 dB at ±0.5, silent at ±1). Linear, not
    /// constant power: a balance only ever lowers one channel, so pan 0 is the recording exactly
    /// and the near side never rises (FMOD's `setPan` on a stereo sound, a console's balance).
    /// Each channel stays on its side: nothing of the left channel moves to the right.
    static func balanceGains(_ pan: Float) -> (left: Float, right: Float) {
        let p = max(-1, min(1, pan.isFinite ? pan : 0))
        return (min(1, 1 - p), min(1, 1 + p))
    }

    /// What the balance at `pan` leaves of a stereo voice's power: the mean of its channels'
    /// squared gains (1 at pan 0, ½ at ±1), exact when the channels are equally loud — the
    /// live level estimates know only the clip's total power.
    static func balancePower(_ pan: Float) -> Float {
        let g = balanceGains(pan)
        return (g.left * g.left + g.right * g.right) / 2
    }

    /// The angles of a 2D stereo voice at `pan` (−1…1) in the one case it plays on a single
    /// source — no second source was free (VoicePool+Balance.swift): at 0 OpenAL's default (the
    /// recorded image); towards ±1 both channels move to that side together, and reach it at ±1
    /// (OpenAL 1.19.1 cannot lower one channel of a source).
    static func panAngles(_ pan: Float) -> (left: Float, right: Float) {
        let p = max(-1, min(1, pan.isFinite ? pan : 0))
        // Counter-clockwise "effective" angles ±90°, then OpenAL's front widening (÷ 3).
        let left = Float.pi / 2 - max(0, p) * .pi
        let right = -Float.pi / 2 + max(0, -p) * .pi
        return (left / 3, right / 3)
    }

    /// The azimuth (radians, clockwise from ahead: OpenAL's convention, −π…π) of `local`, a
    /// direction in the listener's frame (+x right, +y up, −z ahead), with the elevation folded
    /// into it so that the lateral part (what stereo panning hears) is kept; 0 for the origin.
    static func azimuth(ofLocal local: Vector3) -> Float {
        let d = local.length
        guard d > 0, d.isFinite else { return 0 }
        let lateral = max(-1, min(1, local.x / d))
        let front: Float = local.z <= 0 ? 1 : -1
        return atan2f(lateral, front * (1 - lateral * lateral).squareRoot())
    }

    /// The angles of a spread voice heard at `azimuth` (clockwise radians) with `spread`
    /// degrees (0…360) between its channels: the left channel `spread`/2 to the left of it, the
    /// right one to the right; on a StereoPair device (`stereoPair`) each is pre-compensated so
    /// that OpenAL's widening of unspatialised channels (×3) lands it where a spatialised mono
    /// source at that azimuth is heard (×1.5): spread 0 pans like a mono point.
    static func spreadAngles(azimuth: Float, spread: Float, stereoPair: Bool) -> (left: Float, right: Float) {
        let half = max(0, min(360, spread)) * .pi / 360
        func place(_ clockwise: Float) -> Float {
            var a = clockwise
            if a > .pi { a -= 2 * .pi } else if a < -.pi { a += 2 * .pi }
            if stereoPair, abs(a) <= .pi / 2 { a /= 2 }
            return -a   // counter-clockwise for AL_STEREO_ANGLES
        }
        return (place(azimuth - half), place(azimuth + half))
    }

    /// The gain a spread voice's two channels each take so that, at spread 0, it is as loud as
    /// its clip folded to mono (the mean of the channels) at a point.
    static let spreadChannelGain: Float = 0.5
}

#if canImport(Glibc)
import Glibc
#endif
