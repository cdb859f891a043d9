import Foundation

/// A sine written by sox (16-bit, 48 kHz, no dither): the tone file the music, CLI and scene
/// tests measure. Throws with sox's stderr when it fails.
public enum SoxTone {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func write(to path: String, frequency: Int, amplitude: Double = 0.5, seconds: Double = 1,
                             channels: Int = 1) throws {
        try sox(path, channels: channels, ["synth", "\(seconds)", "sine", "\(frequency)", "vol", "\(amplitude)"])
    }

    /// A stereo file with a different sine in each channel (`left` Hz on the left, `right` Hz on
    /// the right), both at `amplitude`: what the balance tests measure channel by channel.
    public static func writeStereo(to path: String, left: Int, right: Int, amplitude: Double = 0.5,
                                   seconds: Double = 1) throws {
        try sox(path, channels: 2, ["synth", "\(seconds)", "sine", "\(left)", "sine", "\(right)", "vol", "\(amplitude)"])
    }

    /// Runs sox with no input (`-n`) writing 16-bit, 48 kHz `path` with `effects`.
    private static func sox(_ path: String, channels: Int, _ effects: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        p.arguments = ["-D", "-n", "-r", "48000", "-c", "\(channels)", "-b", "16", path] + effects
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw Failure(description: "sox → \(path): \(message)") }
    }
}
