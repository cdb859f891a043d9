#if canImport(Glibc)
import Glibc
#endif

/// The EAX reverb values OpenAL Soft 1.19.1 can mix without aborting, and the one place that
/// keeps every reverb Earshot sends inside them.
///
/// EFX documents a range for each value, but 1.19.1 aborts (`BiquadFilter_setParams: Assertion
/// 'gain > 0.00001f'`, SIGABRT) on some combinations of in-range values. Its late reverb
/// (`Alc/effects/reverb.c`, `UpdateLateLines` → `CalcT60DampingCoeffs`) damps each of its four
/// late lines with two shelf filters whose gains are the ratio of two decay coefficients:
///
/// - `CalcDecayCoeff(length, t) = 0.001^(length / t)` for the low, mid and high band decay times;
///   the shelf gain is `lfGain / mfGain` (low shelf) and `hfGain / mfGain` (high shelf), so
///   `gain = 10^(−3 · length · (1/t_band − 1/decayTime))`, and `filter.c` asserts `gain > 1e-5`.
/// - `length` is the late line plus its all-pass share, times `CalcDelayLengthMult(density) =
///   max(5, cbrt(density · 125000))`: at most `(3.883872e-3 + 3.23656e-4) · 50 ≈ 0.21 s`.
/// - The band times are `clamp(decayTime × decayLFRatio, 0.1, 20)` and `clamp(decayTime ×
///   hfRatio, 0.1, 20)`, where `hfRatio` is `decayHFRatio` lowered, when `decayHFLimit` is on and
///   `airAbsorptionGainHF < 1`, to `CalcLimitedHfRatio`'s `1 / (log10(air) · decayTime / −3 ·
///   speedOfSound)` — the speed of sound being the listener's `AL_SPEED_OF_SOUND` ×
///   `AL_DOPPLER_VELOCITY` × `AL_METERS_PER_UNIT` (`ALu.c`, `UpdateContextProps`; Earshot leaves
///   the last two at 1). So density 1, decay 1 s and an HF ratio of 0.1 abort, and so does a fast
///   speed of sound with a long decay and `decayHFLimit`.
///
/// Every other filter 1.19.1 builds from these values is floored first (`maxf(gain, 0.001f)` for
/// the master HF/LF filters and for the direct and send paths, air absorption × distance
/// included; `0.0001f` for echo damping), so the late-line shelves are the whole domain.
///
/// ``sanitised(_:speedOfSound:)`` raises a band's decay time to the shortest one whose shelf gain
/// stays at or above 1.1 × 10^−5 (10 % over the assertion, for `powf`'s rounding), using the
/// longest line 1.19.1 has at that density and diffusion. `earshot validate` reports the same adjustment
/// as a warning; rendering applies it.
///
/// ```swift
/// var r = try ReverbProperties.preset(named: "generic")
/// r.density = 1; r.decayTime = 1; r.decayHFRatio = 0.11
/// let safe = ReverbDomain.sanitised(r, speedOfSound: 343.3)
/// print(safe.adjustments)   // ["decayHFRatio 0.11 raised to 0.121 with density 1 …"]
/// ```
public enum ReverbDomain {
    /// The longest late line, with the all-pass share 1.19.1 adds to it, at `density` and
    /// `diffusion` (0…1), seconds: `reverb.c`'s `UpdateLateLines`, `(LATE_LINE_LENGTHS[i] +
    /// lerp(LATE_ALLPASS_LENGTHS[i], mean, diffusion)) × max(5, cbrt(density · 125000))`.
    public static func longestLateLine(density: Float, diffusion: Float) -> Float {
        let d = min(max(density.isFinite ? density : 1, 0), 1)
        let t = min(max(diffusion.isFinite ? diffusion : 0, 0), 1)
        let multiplier = max(5, cbrtf(d * 125_000))
        let lines: [Float] = [1.9419362e-3, 2.4466860e-3, 3.3791220e-3, 3.8838720e-3]
        let allpass: [Float] = [1.6182800e-4, 2.0389060e-4, 2.8159360e-4, 3.2365600e-4]
        let mean = allpass.reduce(0, +) / 4
        var longest: Float = 0
        for i in 0..<4 {
            let length = lines[i] * multiplier + (allpass[i] + (mean - allpass[i]) * t) * multiplier
            longest = max(longest, length)
        }
        return longest
    }

    /// The lowest shelf gain kept, as a power of ten: 1.19.1 asserts `gain > 1e-5`; 1.1e-5 leaves
    /// 10 % for `powf`'s rounding (its relative error is near 1e-7), and every one of the 113
    /// presets stays as it is (`livingroom`, the closest, reaches 1.22e-5).
    static let minimumShelfExponent: Float = log10f(1.1e-5)

    /// The shortest band decay time (seconds) whose shelf gain against `decayTime` stays in the
    /// domain at `density` and `diffusion`.
    public static func shortestBandDecay(decayTime: Float, density: Float, diffusion: Float) -> Float {
        let length = longestLateLine(density: density, diffusion: diffusion)
        // gain = 10^(−3 · length · (1/t − 1/decay)) ≥ 10^e  ⇔  1/t ≤ 1/decay − e / (3 · length)
        return 1 / (1 / decayTime + (-minimumShelfExponent / 3) / length)
    }

    /// The HF ratio 1.19.1 uses (`CalcLimitedHfRatio`), before its clamp of the time.
    public static func effectiveHFRatio(_ r: ReverbProperties, speedOfSound: Float) -> Float {
        guard r.decayHFLimit, r.airAbsorptionGainHF < 1 else { return r.decayHFRatio }
        let decayLength = log10f(max(r.airAbsorptionGainHF, Float.leastNormalMagnitude)) * r.decayTime / Float(-3)
        let limit = 1 / (decayLength * speedOfSound)
        return limit.isNaN ? r.decayHFRatio : min(limit, r.decayHFRatio)
    }

    /// `r` moved into the domain 1.19.1 mixes (only the decay ratios change, and only as far as
    /// needed), with a sentence per change. `r` should be ``ReverbProperties/validated()`` first.
    public static func sanitised(
        _ r: ReverbProperties, speedOfSound: Float
    ) -> (properties: ReverbProperties, adjustments: [String]) {
        var out = r
        var notes: [String] = []
        let decay = min(max(r.decayTime, 0.1), 20)
        let floor = shortestBandDecay(decayTime: decay, density: r.density, diffusion: r.diffusion)
        func bandTime(_ ratio: Float) -> Float { min(max(decay * ratio, 0.1), 20) }
        // The ratio that gives the floor time, a hair above so float rounding keeps it there.
        let floorRatio = min(max(floor / decay * 1.0001, 0.1), 2)
        func figure(_ v: Float) -> String {
            let s = String(Double(v * 1000).rounded() / 1000)
            return s.hasSuffix(".0") ? String(s.dropLast(2)) : s
        }
        // Made only when a note is (every pan change of a zone or a room sends a reverb: no allocation).
        var context: String { "with density \(figure(r.density)) and decayTime \(figure(decay)) s" }
        if bandTime(r.decayLFRatio) < floor {
            out.decayLFRatio = floorRatio
            notes.append("decayLFRatio \(figure(r.decayLFRatio)) raised to \(figure(floorRatio)) \(context): "
                         + "OpenAL Soft 1.19.1 aborts on a shorter low-band decay")
        }
        let hf = effectiveHFRatio(r, speedOfSound: speedOfSound)
        if bandTime(hf) < floor {
            if hf < r.decayHFRatio {
                // decayHFLimit took it there: apply the limit here, floored, and turn it off.
                out.decayHFLimit = false
                out.decayHFRatio = max(floorRatio, min(hf, r.decayHFRatio))
                notes.append(
                    "decayHFLimit with airAbsorptionGainHF \(figure(r.airAbsorptionGainHF)) and a speed of sound of "
                        + "\(figure(speedOfSound)) m/s limits decayHFRatio to \(figure(hf)); raised to \(figure(out.decayHFRatio)) "
                        + "\(context): OpenAL Soft 1.19.1 aborts on a shorter high-band decay")
            } else {
                out.decayHFRatio = floorRatio
                notes.append("decayHFRatio \(figure(r.decayHFRatio)) raised to \(figure(floorRatio)) \(context): "
                             + "OpenAL Soft 1.19.1 aborts on a shorter high-band decay")
            }
        }
        return (out, notes)
    }

    // MARK: The delay-line cross-fade

    /// Frames of the cross-fade 1.19.1's reverb runs after a change of the values in
    /// `crossFadeKey(_:)` (`reverb.c`: `FADE_SAMPLES`).
    public static let crossFadeFrames = 128

    /// The values whose change makes 1.19.1's reverb cross-fade its delay lines
    /// (`ReverbState_update`: density, diffusion, the three decay times — the HF one through the
    /// air absorption limit — and the two reference frequencies).
    ///
    /// During that fade, `ReverbState_process` rounds every chunk that is not the last of a mix
    /// call down to a multiple of 4; a mix call that ends inside the fade at a frame count that
    /// is not a multiple of 4 leaves 1, 2 or 3 frames of fade, which the next call rounds to 0,
    /// and `BiquadFilter_process` (which assumes more than 0) runs away over memory: SIGSEGV.
    /// An offline render cuts its mix calls at event samples (any count), so the engine cuts a
    /// call that would cross the fade's end exactly at it (see `EngineCore.render`).
    static func crossFadeKey(_ r: ReverbProperties) -> CrossFadeKey {
        CrossFadeKey(density: r.density, diffusion: r.diffusion, decayTime: r.decayTime, decayHFRatio: r.decayHFRatio,
                     decayLFRatio: r.decayLFRatio, hfReference: r.hfReference, lfReference: r.lfReference,
                     airAbsorptionGainHF: r.airAbsorptionGainHF, decayHFLimit: r.decayHFLimit)
    }

    /// ``crossFadeKey(_:)``'s values (a struct, not an array: compared on every pan change, it
    /// allocates nothing).
    struct CrossFadeKey: Equatable {
        var density, diffusion, decayTime, decayHFRatio, decayLFRatio, hfReference, lfReference: Float
        var airAbsorptionGainHF: Float
        var decayHFLimit: Bool
    }
}

