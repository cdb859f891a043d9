import ArgumentParser
import Earshot

/// `earshot`: the command-line face of the engine.
@main
struct EarshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "earshot",
        abstract: "Positional game audio on OpenAL Soft: play, render, inspect and stress-test.",
        subcommands: [
            DevicesCommand.self,
            PlayCommand.self,
            InfoCommand.self,
            DecodeCommand.self,
        ])
}
