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
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: error)
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "earshot",
        abstract: "Positional game audio on OpenAL Soft: play, render scenes, inspect and stress-test.",
        subcommands: [
            DevicesCommand.self,
            PlayCommand.self,
            RenderCommand.self,
            ValidateCommand.self,
            StressCommand.self,
            InfoCommand.self,
            DecodeCommand.self,
            RecordCommand.self,
        ])
}
