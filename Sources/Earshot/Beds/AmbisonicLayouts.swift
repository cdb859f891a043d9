/// The virtual loudspeaker layouts, in the ambisonic frame (+x ahead, +y left, +z up).
extension AmbisonicDecoderMatrix {
    /// First order (where OpenAL's B-format path is not used): the octahedron's 6 vertices (a
    /// 3-design). Second order: the icosahedron's 12 vertices (a spherical 5-design); third order: a
    /// 24-point spherical 7-design (every real harmonic of degree 1…7 sums to < 1e-6 over it),
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
        (-0.028767274179, -0.230125585658, 0.972735657186),
        (-0.384815713853, 0.367051442211, 0.846870772399),
        (0.576501923893, 0.096733143434, 0.811349635305),
        (-0.692672305999, -0.363237340334, 0.623108105460),
        (0.220453464378, 0.693910116064, 0.685484515411),
        (0.561217896544, -0.618811378481, 0.549642566093),
        (-0.918392709011, 0.233478396449, 0.319441184614),
        (0.786168785249, 0.589451837915, 0.185701835958),
        (-0.108454233446, -0.842986493355, 0.526888461886),
        (-0.467721379493, 0.845026010870, 0.259167421022),
        (0.977394798632, -0.090722981386, 0.190967924675),
        (-0.721766140260, -0.692135246471, -0.001561847163),
        (0.167456358161, 0.985741745410, -0.016479668292),
        (0.632543700883, -0.762028376243, -0.138568467820),
        (-0.947486400846, -0.095419515872, -0.305228825968),
        (0.662764115050, 0.549379852191, -0.508847232289),
        (-0.037128504362, -0.986203070541, -0.161322589301),
        (-0.691545811316, 0.619272958864, -0.371840548180),
        (0.853989905207, -0.130795101577, -0.503581059224),
        (-0.415184600357, -0.590764938441, -0.691822618260),
        (-0.056368024339, 0.759988512996, -0.647487533429),
        (0.284395948878, -0.552733020603, -0.783329529762),
        (-0.476082238329, 0.088948462549, -0.874890777959),
        (0.223498301071, 0.126980449508, -0.966397679458),
    ]
}
