#if canImport(Glibc)
import Glibc
#endif

/// File names that are not UTF-8.
///
/// Linux file names are bytes; a Swift `String` holds Unicode. A name with bytes that are not
/// UTF-8 (a Latin-1 `café.wav` is `63 61 66 E9`) would become U+FFFD in `CommandLine.arguments`
/// and could not be opened. Earshot keeps such bytes as escapes: each byte 0x80…0xFF that is not
/// part of valid UTF-8 becomes the private-use scalar U+F700 + byte (U+F780…U+F7FF), and every
/// file Earshot opens for reading turns them back into the byte (``withCString(_:_:)``). Messages
/// show them as `\xE9`. A name that really contains U+F780…U+F7FF is read as those bytes.
///
/// ```swift
/// let name = RawPath.string(fromBytes: [0x63, 0x61, 0x66, 0xE9, 0x2E, 0x77, 0x61, 0x76])  // "caf\u{F7E9}.wav"
/// let clip = try ClipDecoder.decode(path: name)   // opens the bytes 63 61 66 E9 …
/// ```
public enum RawPath {
    static let escapeBase: UInt32 = 0xF700

    /// The string for the bytes of a file name (an argument, a directory entry): valid UTF-8 as
    /// it is, any other byte as its escape.
    public static func string(fromBytes bytes: [UInt8]) -> String {
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }
        var scalars = String.UnicodeScalarView()
        var i = 0
        while i < bytes.count {
            let lead = bytes[i]
            let length =
                lead < 0x80 ? 1 : lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b11110 ? 4 : 0
            if length > 0, i + length <= bytes.count,
               let s = String(validating: bytes[i..<(i + length)], as: UTF8.self), let scalar = s.unicodeScalars.first {
                scalars.append(scalar)
                i += length
            } else {
                scalars.append(Unicode.Scalar(escapeBase + UInt32(lead)) ?? "?")
                i += 1
            }
        }
        return String(scalars)
    }

    /// The bytes `path` stands for: its UTF-8, with every escape turned back into its byte.
    public static func bytes(_ path: String) -> [UInt8] {
        guard path.unicodeScalars.contains(where: isEscape) else { return Array(path.utf8) }
        var out: [UInt8] = []
        for scalar in path.unicodeScalars {
            if isEscape(scalar) {
                out.append(UInt8(scalar.value - escapeBase))
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return out
    }

    /// Runs `body` with the NUL-terminated bytes of `path` (escapes turned back into bytes).
    public static func withCString<R, E: Error>(
        _ path: String, _ body: (UnsafePointer<CChar>) throws(E) -> R
    ) throws(E) -> R {
        var raw = bytes(path).map { CChar(bitPattern: $0) }
        raw.append(0)
        let result: Result<R, E> = raw.withUnsafeBufferPointer { buffer in
            Result { () throws(E) -> R in try body(buffer.baseAddress!) }   // non-empty: holds the NUL
        }
        return try result.get()
    }

    /// The process's arguments (without the program's name), each through ``string(fromBytes:)``.
    public static func arguments() -> [String] {
        (1..<Int(CommandLine.argc)).map { i in
            guard let p = CommandLine.unsafeArgv[i] else { return "" }
            return string(
                fromBytes: Array(
                    UnsafeBufferPointer(
                        start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))))
        }
    }

    static func isEscape(_ s: Unicode.Scalar) -> Bool { (0xF780...0xF7FF).contains(s.value) }
}
