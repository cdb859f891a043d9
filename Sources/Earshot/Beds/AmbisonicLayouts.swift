/// The virtual loudspeaker layouts, in the ambisonic frame (+x ahead, +y left, +z up).
extension AmbisonicDecoderMatrix {
    /// First order (where OpenAL's B-format path is not used): the octahedron's 6 vertices (a
    /// 3-design). Second order: the icosahedron's 12 vertices (a spherical 5-design); third order: a
    /// 24-point spherical 7-design (every real harmonic of degree 1…7 sums to < 1e-5 over it),
    /// found by minimising those sums from a Fibonacci-sphere start; `AmbisonicDecoderTests`
    /// checks the property.
    static func layout(order: Int) -> [(x: Double, y: Double, z: Double)] {
        order == 1 ? octahedron : order == 2 ? icosahedron : tDesign24
    }

    static let octahedron: [(x: Double, y: Double, z: Double)] = [(1, 0, 0), (0, 1, 0), (-1, 0, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]

    static let icosahedron: [(x: Double, y: Double, z: Double)] = {
        let p = (1 + Double(5).squareRoot()) / 2, n = (1 + p * p).squareRoot()
        var out: [(x: Double, y: Double, z: Double)] = []
        for a in [-1.0, 1] {
            for b in [-1.0, 1] {
                out += [(0, a / n, b * p / n), (a / n, b * p / n, 0), (a * p / n, 0, b / n)]
            }
        }
        return out
    }()

    static let tDesign24: [(x: Double, y: Double, z: Double)] = [
        (-0.015944530, 0.029060879, 0.999450468),
        (-0.510536779, 0.452241497, 0.731320604),
        (0.737094611, 0.168588962, 0.654422872),
        (-0.549803886, -0.370144912, 0.748804668),
        (0.225256459, 0.650485766, 0.725346673),
        (0.436698308, -0.527834411, 0.728481587),
        (-0.948031134, 0.101227435, 0.301645447),
        (0.900163080, 0.435061936, 0.020677073),
        (-0.129050136, -0.868918387, 0.477835640),
        (-0.364284535, 0.907114578, 0.210807780),
        (0.913216617, -0.377630335, 0.153071031),
        (-0.792262727, -0.606585462, 0.066135081),
        (0.388324857, 0.916958607, 0.091600865),
        (0.455368540, -0.890237978, -0.010762686),
        (-0.865348540, -0.158659140, -0.475393712),
        (0.532987682, 0.558545404, -0.635571524),
        (-0.260070993, -0.926888533, -0.270630239),
        (-0.801778866, 0.556100448, -0.218867410),
        (0.856946948, -0.118103936, -0.501690530),
        (-0.333156669, -0.478962092, -0.812158819),
        (-0.090288320, 0.861971697, -0.498851494),
        (0.399099108, -0.630711739, -0.665524308),
        (-0.419882113, 0.339434001, -0.841714661),
        (0.203393887, 0.036007714, -0.978434653),
    ]
}
