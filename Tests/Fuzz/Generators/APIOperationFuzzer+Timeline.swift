import Earshot

/// The API fuzzer's timeline and switch operations (issue 41): timeline sounds with delays,
/// clip choices, variations, loops, sustain points and tails at and past their ranges, played,
/// released, paused and stopped; labelled parameters set by label (known or not), globally and
/// on emitters; switch sounds over them (following or not, cases removed) — each a typed error
/// or a success, never a trap.
extension APIOperationFuzzer {
    static let labelSets: [[String]] = [["gravel", "wood", "metal"], ["a"], ["a", "a"], [""], []]

    static func timelineOperation(_ e: AudioEngine, voice: Voice?, emitter: Emitter?, clips: [Clip],
                                  _ g: inout SplitMix64) throws(EarshotError) -> Voice? {
        switch g.next() % 6 {
        case 0:
            try e.defineParameter(ParameterDefinition(name: pick(&g, ["surface", "rpm"]), labels: pick(&g, labelSets),
                                                      defaultLabel: chance(&g, 0.5) ? nil : "wood"))
        case 1:
            let label = pick(&g, ["gravel", "wood", "metal", "sand", ""])
            if let emitter, chance(&g, 0.4) { try emitter.setParameter("surface", label) } else { try e.setParameter(pick(&g, ["surface", "rpm"]), label) }
        case 2:
            voice?.release()
            if chance(&g, 0.3) { voice?.keyOff() }
        case 3:
            guard !clips.isEmpty else { return nil }
            let cases = try (0..<(g.next() % 3)).map { _ throws(EarshotError) in
                try e.makeSound(SoundDefinition(clips: [pick(&g, clips)], loop: chance(&g, 0.5)))
            }
            if let c = cases.first, chance(&g, 0.2) { e.removeSound(c) }
            let labels = ["gravel", "wood", "sand"]
            var table: [String: Sound] = [:]
            for (k, c) in cases.enumerated() { table[labels[k % labels.count]] = c }
            let sw = SoundSwitch(parameter: pick(&g, ["surface", "rpm", "none"]), cases: table,
                                 defaultCase: chance(&g, 0.5) ? cases.last : nil, follow: chance(&g, 0.5),
                                 fade: pick(&g, [0, 0.1, 60, 61, -1, .nan]))
            let s = try e.makeSound(SoundDefinition(switch: sw))
            var options = SoundPlayOptions()
            if let emitter, chance(&g, 0.4) { options.placement = .emitter(emitter) }
            return try e.play(s, options: options)
        default:
            guard !clips.isEmpty else { return nil }
            let layers = (0..<(1 + g.next() % 4)).map { k in
                SoundLayer(clip: pick(&g, clips), gain: Float(value(&g, 0...2)), pitch: Float(value(&g, 0.25...4)),
                           timing: chance(&g, 0.2) ? nil : SoundLayer.Timing(
                               delay: pick(&g, [0, 0.01, seconds(&g), 3_600, 3_601, -1, .nan]),
                               alternatives: chance(&g, 0.3) ? [pick(&g, clips)] : [],
                               selection: pick(&g, SoundDefinition.Selection.allCases),
                               pitchVariation: pick(&g, [0, 100, 2_400, 2_401]), gainVariation: pick(&g, [0, 6, 48, 49]),
                               loop: pick(&g, [nil, true, false]), sustain: k == 1 && chance(&g, 0.6),
                               tail: k > 1 && chance(&g, 0.4)))
            }
            var d = SoundDefinition(layers: layers, loop: chance(&g, 0.3))
            if chance(&g, 0.3) { d.limit = .init(count: 1 + Int(g.next() % 3), steal: pick(&g, SoundDefinition.StealMode.allCases)) }
            let sound = try e.makeSound(d)
            var options = SoundPlayOptions()
            if let emitter, chance(&g, 0.3) { options.placement = .emitter(emitter) }
            if chance(&g, 0.2) { options.delay = seconds(&g) }
            let v = try e.play(sound, options: options)
            switch g.next() % 6 {
            case 0: v.release()
            case 1: v.stop(fade: seconds(&g))
            case 2: e.setPaused(true, of: v)
            case 3: v.gain = Float(value(&g, 0...2))
            default: break
            }
            return v
        }
        return nil
    }
}
