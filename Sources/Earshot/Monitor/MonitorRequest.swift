import Foundation

/// A request line of the monitor protocol, client to server: a JSON object with a `request`.
///
/// - `{"request":"ping"}`: the server answers `{"type":"pong"}`.
/// - `{"request":"pause"}` / `{"request":"resume"}`: stop / restart sending frames to this
///   client (the view's pause key: the game then encodes nothing for it).
/// - `{"request":"rate","hz":10}`: frames per second for every client, 1…60.
///
/// Anything else — not JSON, an unknown request, a value out of range, a line longer than
/// ``MonitorProtocol/maxRequestBytes`` — is answered with an `error` line and the connection is
/// closed.
///
/// ```swift
/// let request = try MonitorRequest.parse(line: Array(#"{"request":"rate","hz":5}"#.utf8))
/// assert(request == .rate(5))
/// ```
public enum MonitorRequest: Sendable, Equatable {
    case ping
    case pause
    case resume
    /// Frames per second, 1…60.
    case rate(Double)

    /// The rates a client may ask for.
    public static let rates: ClosedRange<Double> = 1...60

    private struct Wire: Codable {
        var request: String
        var hz: Double?
    }

    /// Parses one line (without its newline; a trailing `\r` is allowed). Throws
    /// ``EarshotError/monitor(_:)`` for anything that is not a request of the protocol.
    public static func parse(line: some Collection<UInt8>) throws(EarshotError) -> MonitorRequest {
        guard line.count < MonitorProtocol.maxRequestBytes else {
            throw .monitor(
                "a request of \(line.count) bytes is longer than the \(MonitorProtocol.maxRequestBytes - 1) allowed")
        }
        var bytes = Array(line)
        if bytes.last == 0x0D { bytes.removeLast() }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(bytes))
        } catch {
            throw .monitor("not a request: \(MonitorMessage.reason(error))")
        }
        switch wire.request {
        case "ping": return .ping
        case "pause": return .pause
        case "resume": return .resume
        case "rate":
            guard let hz = wire.hz, hz.isFinite, rates.contains(hz) else {
                throw .monitor("rate needs \"hz\" within 1…60")
            }
            return .rate(hz)
        case let other:
            throw .monitor("unknown request \"\(EarshotError.oneLine(String(other.prefix(40))))\"")
        }
    }

    /// The line for this request (JSON and a newline).
    public var line: [UInt8] {
        switch self {
        case .ping: return Array(#"{"request":"ping"}"#.utf8) + [0x0A]
        case .pause: return Array(#"{"request":"pause"}"#.utf8) + [0x0A]
        case .resume: return Array(#"{"request":"resume"}"#.utf8) + [0x0A]
        case .rate(let hz): return Array(#"{"request":"rate","hz":\#(hz)}"#.utf8) + [0x0A]
        }
    }
}
