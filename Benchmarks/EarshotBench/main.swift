// earshot-bench: Earshot's benchmarks. The first argument picks the mode; each mode lives in its
// own file (ClipsBenchmark.swift …). Build with `swift build -c release --product earshot-bench`.
#if canImport(Glibc)
import Glibc
#endif

let modes: [String: (description: String, run: ([String]) throws -> Void)] = [
    "clips": ("IMA4 decode speed, preloading Assets/, and ffmpeg's decode of the same IMA4 for comparison",
              ClipsBenchmark.run),
    "music": ("music streaming with 256 looping voices: underruns and streamer CPU vs a plain libvorbisfile decode",
              runMusicBenchmark),
    "stretch": ("time-stretched music: streamer CPU at rates 0.8 and 1.25 against rate 1, and SoundTouch's soundstretch in cost and quality",
                StretchBenchmark.run),
    "limiter": ("the loopback output limiter's CPU at 48 kHz stereo, limiting and at rest, against copying the same blocks",
                LimiterBenchmark.run),
    "loudness": ("loudness metering's CPU (the master and 8 buses live, a render's meter with true peak) and the true-peak limiter's against the sample-peak one",
                 LoudnessBenchmark.run),
    "scenes": ("scene validation time and peak RSS for 10k, 100k and 1M events, and one over the limit",
               ScenesBenchmark.run),
    "parameters": ("a game frame of 256 voices each under 2 parameter curves against the same frame without curves",
                   ParametersBenchmark.run),
    "rooms": ("rooms and portals: propagation for 1,024 emitters in 32 rooms with 48 portals, moving and still, against no geometry; allocations per update",
              RoomsBenchmark.run),
    "beds": ("one ambisonic bed per order (B-format, 6, 12, 24 virtual loudspeakers): render and streamer CPU against as many plain voices, and a 10-minute streamed third-order bed's underruns and memory",
             BedsBenchmark.run),
    "timelines": ("a game frame of 64 three-part timeline sounds against 192 plain voices, and one play of a timeline and a switch against a plain sound's",
                  TimelinesBenchmark.run),
    "dialogue": ("line tables of 10k and 100k lines read from YAML and CSV: load time, µs per line, peak RSS",
                 DialogueBenchmark.run),
    "monitor": ("the live monitor's cost to a 60 Hz game frame at 1,024 voices: off against on with a client attached",
                MonitorBenchmark.run),
]

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let mode = modes[name] else {
    print("usage: earshot-bench MODE [options]\nmodes:")
    for (name, mode) in modes.sorted(by: { $0.key < $1.key }) { print("  \(name)  \(mode.description)") }
    exit(arguments.isEmpty ? 0 : 2)
}
do {
    try mode.run(Array(arguments.dropFirst()))
} catch {
    var line = "earshot-bench: \(error)\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(1)
}
