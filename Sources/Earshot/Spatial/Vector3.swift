/// A point or direction in Earshot's right-handed world space, in metres.
///
/// The default listener stands at the origin facing −z with +y up, so +x is to its right.
///
/// ```swift
/// let rightOfListener = Vector3(3, 0, 0)
/// let distance = (rightOfListener - .zero).length   // 3
/// ```
public struct Vector3: Sendable, Hashable, CustomStringConvertible {
    public var x: Float
    public var y: Float
    public var z: Float

    public init(_ x: Float, _ y: Float, _ z: Float) {
        self.x = x
        self.y = y
        self.z = z
    }

    public static let zero = Vector3(0, 0, 0)

    @inlinable public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    @inlinable public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    @inlinable public static func * (a: Vector3, s: Float) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inlinable public static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }
    @inlinable public func dot(_ b: Vector3) -> Float { x * b.x + y * b.y + z * b.z }
    @inlinable public func cross(_ b: Vector3) -> Vector3 {
        Vector3(y * b.z - z * b.y, z * b.x - x * b.z, x * b.y - y * b.x)
    }
    @inlinable public var length: Float { dot(self).squareRoot() }
    /// The vector scaled to length 1 (the zero vector stays zero).
    @inlinable public var normalized: Vector3 {
        let l = length
        return l > 0 ? self * (1 / l) : self
    }
    /// Whether every component is finite (no NaN, no infinity).
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    public var description: String { "(\(x), \(y), \(z))" }
}
