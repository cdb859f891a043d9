import ArgumentParser
import Earshot
import Foundation
import Logging

/// `earshot`: the command-line face of the engine.
@main
struct EarshotCommand: ParsableCommand {
    static func main() {
        // Logs go to stderr so that stdout stays clean for --json; EARSHOT_LOG=debug shows more.
        let level = ProcessInfo.processInfo.environment["EARSHOT_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        EarshotLogging.level = level   // the library is quiet (warning) unless asked
        // Whatever way the command ends (return, exit(0) or exit(1)), what it printed must reach
        // stdout: a full device or a closed pipe is exit 1 with a message, never a silent 0.
        atexit { StandardOutput.flushOrFail() }
        do {
            // The arguments from argv's bytes: a file name that is not UTF-8 keeps its bytes
            // (RawPath), where CommandLine.arguments would have replaced them with U+FFFD.
            var command = try parseAsRoot(RawPath.arguments())
            try command.run()
            StandardOutput.flushOrFail()
        } catch {
            // Help and version exit 0 as ArgumentParser prints them; every other failure — a
            // missing or out-of-range value included — is one `earshot: reason` line and exit 1.
            guard exitCode(for: error) != .success else { exit(withError: error) }
            let message = message(for: error).trimmingCharacters(in: .whitespacesAndNewlines)
            note("earshot: " + (message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message)
                 + " (see `earshot --help`)")
            Foundation.exit(1)
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "earshot",
        abstract: "Positional game audio on OpenAL Soft: play, render scenes, inspect and stress-test.",
        version: EarshotVersion.string,
        subcommands: [
            DevicesCommand.self,
            PlayCommand.self,
            RenderCommand.self,
            ValidateCommand.self,
            LinesCommand.self,
            StressCommand.self,
            InfoCommand.self,
            DecodeCommand.self,
            RecordCommand.self,
            AuditionCommand.self,
            MonitorCommand.self,
        ])
}

