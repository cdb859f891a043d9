// libFuzzer harnesses for the monitor protocol's two parsers (issue 30), built alone from their
// sources (no OpenAL, no sockets): -D FUZZ_MONITOR_REQUEST, the request lines a client sends to a
// game (`MonitorRequest.parse`, what the game's monitor thread runs on every line it receives);
// -D FUZZ_MONITOR_MESSAGE, the server's lines as `earshot monitor` and `--replay` read them
// (`MonitorMessage.decode`). Any EarshotError is an accepted outcome; a broken invariant traps.

enum MonitorFuzz {
    static func request(_ bytes: UnsafeRawBufferPointer) {
        // Every line of the input, as the server splits them.
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            do throws(EarshotError) {
                let request = try MonitorRequest.parse(line: line)
                if case .rate(let hz) = request { precondition(hz.isFinite && MonitorRequest.rates.contains(hz), "rate \(hz)") }  // trap: a finding
                // What parses is what the request writes: its own line parses back to it.
                precondition((try? MonitorRequest.parse(line: request.line.dropLast())) == request, "round trip")  // trap: a finding
            } catch {
                precondition(!error.description.contains("\n"), "a multi-line message")  // trap: a finding
            }
        }
    }

    static func message(_ bytes: UnsafeRawBufferPointer) {
        do throws(EarshotError) {
            let message = try MonitorMessage.decode(line: bytes)
            // A decoded message encodes to one line that decodes to itself.
            let line = message.encoded()
            precondition(!line.contains(0x0A), "an encoded message spans lines")  // trap: a finding
            // ("{}" is what a value JSON cannot hold, an infinity, encodes to: not a message.)
            if line != Array("{}".utf8) {
                precondition((try? MonitorMessage.decode(line: line)) == message, "round trip")  // trap: a finding
            }
        } catch {
            precondition(!error.description.contains("\n"), "a multi-line message")  // trap: a finding
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    #if FUZZ_MONITOR_REQUEST
    MonitorFuzz.request(bytes)
    #elseif FUZZ_MONITOR_MESSAGE
    MonitorFuzz.message(bytes)
    #endif
    return 0
}
