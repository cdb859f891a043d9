/// What a room's walls let through (transmission): a broadband loss in dB and a high-frequency
/// ratio (the `gainHF` of an EFX low-pass, 0…1, on top of the loss), from a small material
/// table or explicit numbers.
///
/// ```swift
/// let brick = Walls.concrete                    // 30 dB, highs × 0.1
/// let thin = Walls(loss: 12, hf: 0.4)           // a plasterboard partition
/// let named = try Walls.material(named: "wood") // as a scene's `walls: { material: wood }`
/// ```
public struct Walls: Sendable, Hashable {
    /// Broadband loss through the wall, dB, 0…120.
    public var loss: Float
    /// What is left of the highs (above about 5 kHz) after the loss, 0…1 (1: no darkening).
    public var hf: Float

    public init(loss: Float, hf: Float = 1) {
        self.loss = loss
        self.hf = hf
    }

    /// 30 dB, highs × 0.1 (−20 dB more): a monster behind a concrete wall is a dull thud.
    public static let concrete = Walls(loss: 30, hf: 0.1)
    /// 18 dB, highs × 0.25.
    public static let wood = Walls(loss: 18, hf: 0.25)
    /// 12 dB, highs × 0.5.
    public static let glass = Walls(loss: 12, hf: 0.5)
    /// 4 dB, highs × 0.6: a curtain barely stops sound.
    public static let curtain = Walls(loss: 4, hf: 0.6)
    /// No wall at all (an open-plan area that is a room only for its reverb).
    public static let none = Walls(loss: 0, hf: 1)

    /// The material table, by the names scenes use.
    public static let materials: [(name: String, walls: Walls)] = [
        ("concrete", .concrete), ("wood", .wood), ("glass", .glass), ("curtain", .curtain), ("none", .none),
    ]

    /// A material of the table by name; an unknown name throws ``EarshotError/invalidArgument(_:)``.
    public static func material(named name: String) throws(EarshotError) -> Walls {
        guard let m = materials.first(where: { $0.name == name }) else {
            throw .invalidArgument("unknown wall material \"\(name)\" (known: \(materials.map(\.name).joined(separator: ", ")))")
        }
        return m.walls
    }

    /// Whether the values are in range (loss 0…120 dB, hf 0…1).
    public var isValid: Bool { loss.isFinite && (0...120).contains(loss) && hf.isFinite && (0...1).contains(hf) }

    /// The low-pass these walls put on what crosses them.
    var filter: LowPassFilter { LowPassFilter(gain: RoomMath.amplitude(dB: -loss), gainHF: hf) }
}
