// EarshotError's description names OpenAL error codes through ALErrorName, which lives in the
// OpenAL layer. The fuzz build leaves OpenAL out and supplies this stand-in instead.
enum ALErrorName {
    static func name(_ code: Int32) -> String { "0x" + String(code, radix: 16, uppercase: true) }
}
