import Foundation

/// One line of the monitor protocol, server to client: a JSON object with a `type` of `hello`
/// (first, once), `frame` (the engine's state, repeatedly), `pong`, `error` or `bye` (the engine
/// shut down). The protocol is versioned (``MonitorProtocol/version``) and documented in the
/// MonitorProtocol article; `earshot monitor` reads it, and so can any JSON-lines reader.
///
/// ```swift
/// let line = #"{"type":"pong"}"#
/// if case .pong = try MonitorMessage.decode(line: Array(line.utf8)) { print("alive") }
/// ```
public enum MonitorMessage: Sendable, Equatable {
    case hello(MonitorHello)
    case frame(MonitorFrame)
    case pong
    /// The server refused a request (then closes the connection).
    case error(String)
    /// The engine shut down; nothing follows.
    case bye

    private struct Envelope: Decodable { var type: String }
    private struct Text: Codable { var type: String; var message: String }

    /// Decodes one line (without its newline). Throws ``EarshotError/monitor(_:)`` for a line
    /// longer than ``MonitorProtocol/maxMessageBytes``, one that is not JSON, or one whose
    /// `type` or fields do not match the protocol. Unknown fields are ignored (a newer server's
    /// additions); an unknown `type` is an error.
    public static func decode(line: some Collection<UInt8>) throws(EarshotError) -> MonitorMessage {
        guard line.count <= MonitorProtocol.maxMessageBytes else {
            throw .monitor(
                "a message of \(line.count) bytes is longer than the \(MonitorProtocol.maxMessageBytes) allowed")
        }
        let data = Data(line)
        let decoder = JSONDecoder()
        do {
            switch try decoder.decode(Envelope.self, from: data).type {
            case "hello": return .hello(try decoder.decode(MonitorHello.self, from: data))
            case "frame": return .frame(try decoder.decode(MonitorFrame.self, from: data))
            case "pong": return .pong
            case "bye": return .bye
            case "error": return .error(try decoder.decode(Text.self, from: data).message)
            case let other:
                throw EarshotError.monitor("unknown message type \"\(EarshotError.oneLine(String(other.prefix(40))))\"")
            }
        } catch let error as EarshotError {
            throw error
        } catch {
            throw .monitor("not a monitor message: \(Self.reason(error))")
        }
    }

    /// The line for this message (JSON, no newline).
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let data: Data?
        switch self {
        case .hello(let h): data = try? encoder.encode(h)
        case .frame(let f): data = try? encoder.encode(f)
        case .pong: data = Data(#"{"type":"pong"}"#.utf8)
        case .bye: data = Data(#"{"type":"bye"}"#.utf8)
        case .error(let m): data = try? encoder.encode(Text(type: "error", message: m))
        }
        // Every value is finite and every string valid (the types hold nothing else), so encoding
        // cannot fail; an empty object would say so if it did.
        return data.map { Array($0) } ?? Array("{}".utf8)
    }

    static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
            return "wrong value at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.dataCorrupted(let c):
            return c.codingPath.isEmpty
                ? "not JSON" : "bad value at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
        default: return "not JSON"
        }
    }
}

/// The protocol's constants.
public enum MonitorProtocol {
    /// The protocol version in every `hello`. A change that removes or changes a field raises it;
    /// new fields do not (readers ignore what they do not know).
    public static let version = 1
    /// The longest server message a reader accepts (16 MiB).
    public static let maxMessageBytes = 16 << 20
    /// The longest request line a server accepts (its newline included).
    public static let maxRequestBytes = 1_024
    /// The most voice rows in one frame (the rest are counted in ``MonitorFrame/voicesOmitted``).
    public static let maxVoiceRows = 1_024
    /// The most events one frame carries (older ones are counted in ``MonitorFrame/eventsDropped``).
    public static let maxEvents = 1_024
    /// Frames per second a server sends by default (1…60; a client asks for another with `rate`).
    public static let defaultRate = 10.0
    /// The silence floor of every dB value: −∞ (a gain of 0, nothing heard) is written as this.
    public static let silenceDecibels = -144.0
}

/// The first line a client reads: who the engine is.
public struct MonitorHello: Codable, Sendable, Equatable {
    public var type = "hello"
    /// ``MonitorProtocol/version``.
    public var `protocol`: Int
    public var pid: Int
    /// The process's name (`/proc/self/comm`).
    public var process: String
    /// Earshot's version.
    public var earshot: String
    /// The output device's name (`loopback` for a loopback engine).
    public var output: String
    public var sampleRate: Int
    public var loopback: Bool
    /// Frames per second the server sends.
    public var rate: Double

    public init(protocol: Int = MonitorProtocol.version, pid: Int, process: String, earshot: String, output: String,
                sampleRate: Int, loopback: Bool, rate: Double) {
        self.protocol = `protocol`
        self.pid = pid
        self.process = process
        self.earshot = earshot
        self.output = output
        self.sampleRate = sampleRate
        self.loopback = loopback
        self.rate = rate
    }
}
