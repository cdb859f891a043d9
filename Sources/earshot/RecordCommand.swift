import ArgumentParser
import Earshot
import Foundation

/// `earshot record -o FILE`: records an input device, with a live level meter on a terminal.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record an input device to a file, with a live level meter.",
        discussion: """
            Records 16-bit PCM from the default input device (or --device NAME, as `earshot devices` \
            lists them) until --seconds have been recorded or Ctrl-C. On a terminal a meter shows \
            the average and peak level of each channel. If the input goes away the file is \
            finished with what was recorded and the command exits 1 saying so. At the end one \
            line (or --json) reports the frames and the last meter reading.
            """)

    @Option(
        name: .shortAndLong,
        help: "The file to write: .wav, .caf, .flac, .ogg, .w64, .rf64 or .aiff (the container follows the extension).")
    var output: String

    @Option(name: .long, parsing: .unconditional, help: "Seconds to record (default 10; at most 86400).")
    var seconds: Double = 10

    @Option(name: .long, help: "The input device (default: the system's default input).")
    var device: String?

    @Option(name: .long, parsing: .unconditional, help: "Sample rate in Hz (default 48000).")
    var rate: Int = 48_000

    @Option(name: .long, parsing: .unconditional, help: "1 or 2 channels (default 1).")
    var channels: Int = 1

    @Flag(name: .long, help: "Print the summary as one JSON object on stdout.")
    var json = false

    func validate() throws {
        guard seconds.isFinite, seconds > 0, seconds <= Recorder.maxSecondsLimit else {
            throw ValidationError("--seconds must be more than 0 and at most \(Int(Recorder.maxSecondsLimit))")
        }
        guard channels == 1 || channels == 2 else { throw ValidationError("--channels must be 1 or 2") }
        guard (8_000...192_000).contains(rate) else { throw ValidationError("--rate must be within 8000…192000") }
    }

    func run() throws {
        let recorder: Recorder
        switch Self.start(device: device, rate: rate, channels: channels, output: output, seconds: seconds) {
        case .success(let r): recorder = r
        case .failure(let error):
            fail(error)
        }
        // Ctrl-C: stop and finish the file (a file cut by a signal would keep no length).
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { try? recorder.stop() }
        interrupt.resume()
        defer { interrupt.cancel() }
        let showMeter = !json && isatty(2) != 0
        while recorder.isRecording {
            if showMeter { note(Self.meterLine(recorder), newline: false, prefix: "\r") }
            usleep(50_000)
        }
        let reading = recorder.meters()
        let state = recorder.state
        if recorder.isRecording { try? recorder.stop() }
        if showMeter { note("") }
        let frames = Int((recorder.currentTime * Double(rate)).rounded())
        if json {
            let summary: [String: Any] = [
                "file": output, "frames": frames, "sampleRate": rate, "channels": channels,
                "seconds": recorder.currentTime, "device": recorder.deviceName,
                "averagePower": reading.averagePower, "peakPower": reading.peakPower,
                "deviceLost": { if case .failed = state { return true } else { return false } }(),
            ]
            try sayJSON(object: summary)
        }
        if case .failed(let error) = state {
            fail(
                "\(output): \(error.cliDescription); the file holds the \(String(format: "%.2f", recorder.currentTime)) s recorded before"
            )
        }
        if !json {
            note(
                "earshot: wrote \(output) (\(frames) frames, \(rate) Hz, \(channels) channel\(channels > 1 ? "s" : ""), \(String(format: "%.2f", recorder.currentTime)) s) from \(recorder.deviceName)"
            )
        }
    }

    /// Opens the input and starts recording `seconds` into `output`.
    static func start(
        device: String?, rate: Int, channels: Int, output: String, seconds: Double
    ) -> Result<Recorder, EarshotError> {
        do throws(EarshotError) {
            let recorder = try Recorder(
                configuration: .init(
                    device: device, sampleRate: rate, channels: channels, path: output,
                    maxSeconds: seconds))
            try recorder.record(forDuration: seconds)
            return .success(recorder)
        } catch {
            return .failure(error)
        }
    }

    /// `L  -20.1 dB avg  -12.0 peak  [#####.....]` per channel.
    static func meterLine(_ recorder: Recorder) -> String {
        let m = recorder.meters()
        let names = m.averagePower.count == 1 ? ["M"] : ["L", "R"]
        return String(format: "%6.2f s ", recorder.currentTime)
            + zip(names, zip(m.averagePower, m.peakPower)).map { name, power in
                let filled = Int(((power.1 + 60) / 60 * 20).rounded()).clamped(to: 0...20)
                return String(format: "%@ %6.1f avg %6.1f peak [", name, power.0, power.1)
                    + String(repeating: "#", count: filled) + String(repeating: ".", count: 20 - filled) + "]"
            }.joined(separator: "  ")
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
