import Foundation

// `--json` output, one way for every command: keys sorted, printed by ``sayJSON(_:)`` (which
// escapes the controls JSON serializers leave raw).

/// Prints `value` as JSON on stdout; `pretty` indents it.
func sayJSON(encoding value: some Encodable, pretty: Bool = false) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys]
    sayJSON(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// Prints a JSON object (dictionaries, arrays, strings, numbers, `NSNull`) on stdout; `pretty`
/// indents it.
func sayJSON(object: Any, pretty: Bool = false) throws {
    let data = try JSONSerialization.data(
        withJSONObject: object, options: pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys])
    sayJSON(String(decoding: data, as: UTF8.self))
}
