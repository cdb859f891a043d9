import ArgumentParser
import Earshot

/// `earshot decode FILE -o OUT.wav`: the samples Earshot would upload, as a 16-bit WAV.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode an audio file to a 16-bit PCM WAV of exactly the samples Earshot uploads.",
        discussion: """
            For IMA4 CAF this is the decoder's output for every packet (trimmed only by a pakt \
            chunk). 16-bit sources are written unchanged; float sources are converted to 16-bit \
            with clipping. --mono writes the downmix a clip loaded for positioning gets. Exits 1 \
            with `earshot: FILE: reason` on stderr on any error.
            """)

    @Argument(help: "The audio file to decode.")
    var file: String

    @Option(name: [.customShort("o"), .long], help: "The file to write: .wav, .rf64, .w64, .caf, .aiff, .flac or .ogg.")
    var out: String

    @Flag(name: .long, help: "Mix down to mono, as a clip loaded for 3D positioning is.")
    var mono = false

    func run() throws {
        OutputGuard.refuseOverwriting([out], inputs: [file])
        OutputGuard.removePartialOutputOnInterrupt()
        do throws(EarshotError) {
            _ = try AudioFileWriter.Container.forPath(out)
            var audio = try ClipDecoder.decode(path: file)
            if mono { audio = audio.downmixedToMono() }
            let writer = try AudioFileWriter(
                path: out, sampleRate: audio.sampleRate, channels: audio.channels, format: .s16,
                expectedFrames: audio.frameCount)
            try writer.write(audio)
            try writer.close()
            note("earshot: wrote \(out) (\(audio.frameCount) frames, \(audio.sampleRate) Hz, \(audio.channels) ch)")
        } catch {
            fail(error)
        }
    }
}
