import COpenAL

/// The parameters of an EAX reverb (OpenAL EFX `AL_EFFECT_EAXREVERB`): one room's sound.
///
/// Start from one of the 113 presets of OpenAL Soft's `efx-presets.h`, named as there without
/// the `EFX_REVERB_PRESET_` prefix, in lower case (`hangar`, `bathroom`, `castle_smallroom`), or
/// set every value yourself. ``validated()`` checks each value against the range EFX accepts, so
/// nothing out of range ever reaches OpenAL. The values need no OpenAL: the type is usable alone.
///
/// Pans are vectors in the listener's frame (EAX's left-handed one: +z is in front); their
/// length says how localised the reflections or the tail are (0 all around, 1 a point). Reverb
/// zones set them themselves when the listener is outside a zone.
///
/// ```swift
/// let hangar = try ReverbProperties.preset(named: "hangar")
/// print(hangar.decayTime)                       // 10.05 s
/// var small = try ReverbProperties.preset(named: "castle_smallroom")
/// small.decayTime = 1.5
/// _ = try small.validated()
/// ```
public struct ReverbProperties: Sendable, Equatable {
    public var density: Float
    public var diffusion: Float
    /// The master gain of the reverb (reflections and tail), 0…1.
    public var gain: Float
    public var gainHF: Float
    public var gainLF: Float
    /// Seconds for the late reverb to fall by 60 dB, 0.1…20.
    public var decayTime: Float
    public var decayHFRatio: Float
    public var decayLFRatio: Float
    public var reflectionsGain: Float
    public var reflectionsDelay: Float
    public var reflectionsPan: Vector3
    public var lateReverbGain: Float
    public var lateReverbDelay: Float
    public var lateReverbPan: Vector3
    public var echoTime: Float
    public var echoDepth: Float
    public var modulationTime: Float
    public var modulationDepth: Float
    public var airAbsorptionGainHF: Float
    public var hfReference: Float
    public var lfReference: Float
    public var roomRolloffFactor: Float
    public var decayHFLimit: Bool

    /// The names of every preset, in the header's order (`generic`, `paddedcell`, `room` …).
    public static let presetNames: [String] = presets.map(\.name)

    /// The preset called `name` (case-insensitive; `-` and spaces read as `_`). Throws
    /// ``EarshotError/invalidArgument(_:)`` naming the closest preset names for an unknown one.
    public static func preset(named name: String) throws(EarshotError) -> ReverbProperties {
        let key = normalised(name)
        if let found = presets.first(where: { $0.name == key }) { return found.properties }
        let near = suggestions(for: name)
        throw .invalidArgument("no reverb preset named \"\(name)\""
            + (near.isEmpty ? "" : " (did you mean \(near.map { "'\($0)'" }.joined(separator: ", "))?)"))
    }

    /// Up to `limit` preset names closest to `name` by edit distance (for "did you mean").
    public static func suggestions(for name: String, limit: Int = 3) -> [String] {
        // No preset name is near a long name, and comparing one costs O(n·m): not compared.
        guard name.unicodeScalars.count <= 64 else { return [] }
        let key = normalised(name)
        let scored = presetNames.map { candidate -> (String, Int) in
            // A name that contains the key (or the key the name) is a good match too.
            let d = EditDistance.levenshtein(key, candidate)
            let contains = candidate.contains(key) || key.contains(candidate)
            return (candidate, contains ? min(d, max(1, abs(candidate.count - key.count) / 4)) : d)
        }
        let threshold = max(2, key.count / 3)
        return scored.filter { $0.1 <= threshold }
            .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
            .prefix(limit).map(\.0)
    }

    private static func normalised(_ name: String) -> String {
        String(name.lowercased().map { $0 == "-" || $0 == " " ? "_" : $0 })
    }

    /// Every preset of `efx-presets.h`, read from the installed header through the C shim.
    static let presets: [(name: String, properties: ReverbProperties)] = {
        var out: [(String, ReverbProperties)] = []
        for i in 0..<Int32(EARSHOT_REVERB_PRESET_COUNT) {
            var raw = EFXEAXREVERBPROPERTIES()
            guard let name = earshot_reverb_preset(i, &raw) else { break }
            out.append((String(cString: name), ReverbProperties(raw)))
        }
        return out
    }()

    init(_ r: EFXEAXREVERBPROPERTIES) {
        density = r.flDensity
        diffusion = r.flDiffusion
        gain = r.flGain
        gainHF = r.flGainHF
        gainLF = r.flGainLF
        decayTime = r.flDecayTime
        decayHFRatio = r.flDecayHFRatio
        decayLFRatio = r.flDecayLFRatio
        reflectionsGain = r.flReflectionsGain
        reflectionsDelay = r.flReflectionsDelay
        reflectionsPan = Vector3(r.flReflectionsPan.0, r.flReflectionsPan.1, r.flReflectionsPan.2)
        lateReverbGain = r.flLateReverbGain
        lateReverbDelay = r.flLateReverbDelay
        lateReverbPan = Vector3(r.flLateReverbPan.0, r.flLateReverbPan.1, r.flLateReverbPan.2)
        echoTime = r.flEchoTime
        echoDepth = r.flEchoDepth
        modulationTime = r.flModulationTime
        modulationDepth = r.flModulationDepth
        airAbsorptionGainHF = r.flAirAbsorptionGainHF
        hfReference = r.flHFReference
        lfReference = r.flLFReference
        roomRolloffFactor = r.flRoomRolloffFactor
        decayHFLimit = r.iDecayHFLimit != 0
    }

    /// The C struct of `efx-presets.h`, for code that drives OpenAL itself (benchmarks' raw
    /// baselines).
    public var efxProperties: EFXEAXREVERBPROPERTIES { raw }

    /// The C struct the shim hands to OpenAL.
    var raw: EFXEAXREVERBPROPERTIES {
        EFXEAXREVERBPROPERTIES(
            flDensity: density, flDiffusion: diffusion, flGain: gain, flGainHF: gainHF, flGainLF: gainLF,
            flDecayTime: decayTime, flDecayHFRatio: decayHFRatio, flDecayLFRatio: decayLFRatio,
            flReflectionsGain: reflectionsGain, flReflectionsDelay: reflectionsDelay,
            flReflectionsPan: (reflectionsPan.x, reflectionsPan.y, reflectionsPan.z),
            flLateReverbGain: lateReverbGain, flLateReverbDelay: lateReverbDelay,
            flLateReverbPan: (lateReverbPan.x, lateReverbPan.y, lateReverbPan.z),
            flEchoTime: echoTime, flEchoDepth: echoDepth, flModulationTime: modulationTime,
            flModulationDepth: modulationDepth, flAirAbsorptionGainHF: airAbsorptionGainHF,
            flHFReference: hfReference, flLFReference: lfReference, flRoomRolloffFactor: roomRolloffFactor,
            iDecayHFLimit: decayHFLimit ? 1 : 0)
    }

    /// The EFX range of every value (`efx.h`'s `AL_EAXREVERB_MIN_*`/`MAX_*`), by name.
    static var ranges: [(name: String, range: ClosedRange<Float>, value: (ReverbProperties) -> Float)] { [
        ("density", 0...1, \.density), ("diffusion", 0...1, \.diffusion), ("gain", 0...1, \.gain),
        ("gainHF", 0...1, \.gainHF), ("gainLF", 0...1, \.gainLF), ("decayTime", 0.1...20, \.decayTime),
        ("decayHFRatio", 0.1...2, \.decayHFRatio), ("decayLFRatio", 0.1...2, \.decayLFRatio),
        ("reflectionsGain", 0...3.16, \.reflectionsGain), ("reflectionsDelay", 0...0.3, \.reflectionsDelay),
        ("lateReverbGain", 0...10, \.lateReverbGain), ("lateReverbDelay", 0...0.1, \.lateReverbDelay),
        ("echoTime", 0.075...0.25, \.echoTime), ("echoDepth", 0...1, \.echoDepth),
        ("modulationTime", 0.04...4, \.modulationTime), ("modulationDepth", 0...1, \.modulationDepth),
        ("airAbsorptionGainHF", 0.892...1, \.airAbsorptionGainHF), ("hfReference", 1000...20000, \.hfReference),
        ("lfReference", 20...1000, \.lfReference), ("roomRolloffFactor", 0...10, \.roomRolloffFactor),
    ] }

    /// The properties unchanged when every value is within its EFX range (and pans are finite
    /// vectors no longer than 1); otherwise ``EarshotError/invalidArgument(_:)`` naming the value.
    public func validated() throws(EarshotError) -> ReverbProperties {
        for (name, range, value) in Self.ranges {
            let v = value(self)
            // `reflectionsGain`'s EFX maximum is 3.16 (10 dB); allow the float spelling of it.
            guard v.isFinite, v >= range.lowerBound - 1e-4, v <= range.upperBound + 1e-4 else {
                throw .invalidArgument("reverb \(name) \(v) is outside \(range.lowerBound)…\(range.upperBound)")
            }
        }
        for (name, pan) in [("reflectionsPan", reflectionsPan), ("lateReverbPan", lateReverbPan)] {
            guard pan.isFinite, pan.length <= 1.0001 else {
                throw .invalidArgument("reverb \(name) \(pan) must be a finite vector no longer than 1")
            }
        }
        return self
    }
}

/// Edit distance for "did you mean" suggestions.
enum EditDistance {
    /// The Levenshtein distance between `a` and `b` (insertions, deletions, substitutions).
    static func levenshtein(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

extension ReverbProperties {
    /// The names of the values ``set(_:to:)`` knows (the float values), with each one's EFX range.
    public static var valueRanges: [(name: String, range: ClosedRange<Float>)] { ranges.map { ($0.name, $0.range) } }

    /// Sets the value named `name` (one of ``valueRanges``, e.g. `"decayTime"`); false, and
    /// nothing changed, for an unknown name. The value is not range-checked: see ``validated()``.
    public mutating func set(_ name: String, to value: Float) -> Bool {
        guard Self.ranges.contains(where: { $0.name == name }) else { return false }
        self[keyPath: Self.writable(name)] = value
        return true
    }

    /// The writable key path of a value named in ``ranges``.
    static func writable(_ name: String) -> WritableKeyPath<ReverbProperties, Float> {
        switch name {
        case "density": return \.density
        case "diffusion": return \.diffusion
        case "gain": return \.gain
        case "gainHF": return \.gainHF
        case "gainLF": return \.gainLF
        case "decayTime": return \.decayTime
        case "decayHFRatio": return \.decayHFRatio
        case "decayLFRatio": return \.decayLFRatio
        case "reflectionsGain": return \.reflectionsGain
        case "reflectionsDelay": return \.reflectionsDelay
        case "lateReverbGain": return \.lateReverbGain
        case "lateReverbDelay": return \.lateReverbDelay
        case "echoTime": return \.echoTime
        case "echoDepth": return \.echoDepth
        case "modulationTime": return \.modulationTime
        case "modulationDepth": return \.modulationDepth
        case "airAbsorptionGainHF": return \.airAbsorptionGainHF
        case "hfReference": return \.hfReference
        case "lfReference": return \.lfReference
        default: return \.roomRolloffFactor
        }
    }
}
