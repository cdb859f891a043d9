import Earshot

/// The API fuzzer's game-parameter operations (issue 28): definitions at and past their ranges,
/// global, voice and emitter values (not finite, out of range, unknown names, ramps), bus curves,
/// and sounds with curves and layers made and played — each a typed error or a success, never a
/// trap.
extension APIOperationFuzzer {
    static let parameterNames = ["rpm", "speed", "rmp", "", String(repeating: "p", count: 65)]

    /// `value` as a Double.
    static func number(_ g: inout SplitMix64, _ r: ClosedRange<Double>) -> Double {
        Double(value(&g, Float(r.lowerBound)...Float(r.upperBound)))
    }

    static func parameterCurve(_ g: inout SplitMix64) -> ParameterCurve {
        let property = pick(&g, ParameterCurve.Property.allCases)
        let r = property.valueRange
        var points: [ParameterCurve.Point] = []
        var x = number(&g, -10...10) * 100
        for _ in 0..<(g.next() % 5) {
            points.append(.init(x, pick(&g, [r.lowerBound, r.upperBound, r.lowerBound + g.nextUnit() * (r.upperBound - r.lowerBound),
                                             r.upperBound + 1, .nan])))
            x += pick(&g, [1, 1000, 0, -5, .infinity])
        }
        return ParameterCurve(parameter: pick(&g, parameterNames), property: property, points: points,
                              shape: pick(&g, ParameterCurve.Shape.allCases))
    }

    /// One operation; returns a voice it played, if any.
    static func parameterOperation(_ e: AudioEngine, voice: Voice?, emitter: Emitter?, clips: [Clip], buses: [Bus],
                                   _ g: inout SplitMix64) throws(EarshotError) -> Voice? {
        let name = pick(&g, parameterNames)
        let v = number(&g, -10_000...10_000)
        let ramp: Double? = chance(&g, 0.5) ? nil : seconds(&g)
        switch g.next() % 10 {
        case 0:
            let lo = number(&g, -1000...1000), hi = chance(&g, 0.1) ? number(&g, -1000...1000) : lo + abs(number(&g, 0...10_000))
            // A reversed or NaN range traps in ClosedRange itself, in the caller's code: not drawn.
            guard lo.isFinite, hi.isFinite, lo <= hi else { return nil }
            let d: Double? = chance(&g, 0.8) ? nil : chance(&g, 0.5) ? lo + g.nextUnit() * (hi - lo) : number(&g, -1e4...1e4)
            try e.defineParameter(ParameterDefinition(name: name, range: lo...hi, defaultValue: d,
                                                      seek: seconds(&g) * 1000))
        case 1:
            try e.setParameter(name, v, ramp: ramp)
        case 2:
            _ = try e.parameter(name)
        case 3:
            if let voice { try voice.setParameter(name, v, ramp: ramp); _ = try voice.parameter(name) }
        case 4:
            if let emitter { try emitter.setParameter(name, v, ramp: ramp) }
        case 8, 9:   // timelines, labels and switches (APIOperationFuzzer+Timeline.swift)
            return try timelineOperation(e, voice: voice, emitter: emitter, clips: clips, &g)
        case 5:
            try e.setCurves((0..<(g.next() % 3)).map { _ in parameterCurve(&g) }, for: pick(&g, buses + [Bus("nowhere")]))
        default:
            guard !clips.isEmpty else { return nil }
            var d: SoundDefinition
            if chance(&g, 0.6) {
                let layers = (0..<(1 + g.next() % 4)).map { _ in
                    SoundLayer(clip: pick(&g, clips), gain: Float(value(&g, 0...2)), pitch: Float(value(&g, 0.1...4)),
                               curves: chance(&g, 0.7) ? [parameterCurve(&g)] : [])
                }
                d = SoundDefinition(layers: layers, curves: chance(&g, 0.5) ? [parameterCurve(&g)] : [], loop: chance(&g, 0.8))
            } else {
                d = SoundDefinition(clips: [pick(&g, clips)], loop: chance(&g, 0.5))
                d.curves = (0..<(g.next() % 3)).map { _ in parameterCurve(&g) }
            }
            let sound = try e.makeSound(d)
            var options = SoundPlayOptions()
            if let emitter, chance(&g, 0.3) { options.placement = .emitter(emitter) }
            if chance(&g, 0.3) { options.position = vector(&g) }
            return try e.play(sound, options: options)
        }
        return nil
    }
}
