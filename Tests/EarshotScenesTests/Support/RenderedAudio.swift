import CSndFile
import EarshotMeasure
import EarshotScenes
import Foundation
import EarshotTestSupport
import XCTest

/// Why a render could not be read back (thrown so the test fails and says which file and why).
enum RenderedAudioError: Error, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)

    var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the render \(path): \(reason)"
        }
    }
}

/// A rendered WAV read back as float samples, with the measurements the scene tests need.
struct RenderedAudio {
    var samples: [Float]
    var channels: Int
    var sampleRate: Int

    var frameCount: Int { samples.count / channels }

    init(path: String) throws {
        var info = SF_INFO()
        guard let f = sf_open(path, Int32(SFM_READ), &info) else {
            // A render that cannot be read back is a failure of the render, not a reason to skip.
            throw RenderedAudioError.cannotOpen(path: path, reason: String(cString: sf_strerror(nil)))
        }
        defer { sf_close(f) }
        channels = Int(info.channels)
        sampleRate = Int(info.samplerate)
        samples = [Float](repeating: 0, count: Int(info.frames) * channels)
        let n = samples.withUnsafeMutableBufferPointer { sf_readf_float(f, $0.baseAddress, info.frames) }
        XCTAssertEqual(n, info.frames)
    }

    func frame(_ t: Double) -> Int { min(frameCount, max(0, Int((t * Double(sampleRate)).rounded()))) }

    /// RMS of one channel over `from..<to` seconds.
    func rms(_ channel: Int, _ from: Double, _ to: Double) -> Double {
        Level.rms(samples, channel: channel, of: channels, from: frame(from), to: frame(to))
    }

    /// RMS of the mono sum over `from..<to`.
    func rms(_ from: Double, _ to: Double) -> Double {
        (0..<channels).map { pow(rms($0, from, to), 2) }.reduce(0, +).squareRoot()
    }

    /// Power at `frequencies` (Goertzel, summed, on the channel mix) over `from..<to` seconds.
    func power(at frequencies: [Double], _ from: Double, _ to: Double) -> Double {
        let a = frame(from), b = frame(to)
        var total = 0.0
        for f in frequencies {
            let w = 2 * Double.pi * f / Double(sampleRate)
            let coeff = 2 * cos(w)
            var s1 = 0.0, s2 = 0.0
            for i in a..<b {
                var x = 0.0
                for c in 0..<channels { x += Double(samples[i * channels + c]) }
                let s0 = x + coeff * s1 - s2
                s2 = s1
                s1 = s0
            }
            total += (s1 * s1 + s2 * s2 - coeff * s1 * s2) / Double((b - a) * (b - a))
        }
        return total
    }

    /// Frequency of the channel mix over `from..<to` seconds, from rising zero crossings
    /// (interpolated).
    func frequency(_ from: Double, _ to: Double) -> Double {
        var crossings: [Double] = []
        var previous: Float = 0
        for i in frame(from)..<frame(to) {
            var x: Float = 0
            for c in 0..<channels { x += samples[i * channels + c] }
            if previous < 0, x >= 0 { crossings.append(Double(i - 1) + Double(-previous / (x - previous))) }
            previous = x
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) / ((last - first) / Double(sampleRate))
    }

    /// The first frame at or after `from` seconds whose |sample| on any channel exceeds `threshold`.
    func onset(after from: Double, threshold: Float = 1e-3) -> Int? {
        for i in frame(from)..<frameCount {
            for c in 0..<channels where abs(samples[i * channels + c]) > threshold { return i }
        }
        return nil
    }
}

/// The package's scenes and a scratch folder.
enum SceneFixtures {
    static var scenesFolder: String { CLIRunner.packageRoot.appendingPathComponent("Demos/Scenes").path }
    static func path(_ name: String) -> String { scenesFolder + "/" + name }

    /// The short beep of Assets/Sounds, the sound most test scenes play.
    static var beep: String { CLIRunner.packageRoot.appendingPathComponent("Assets/Sounds/beep.wav").path }

    /// Writes `yaml` as `name` in `folder` and returns its path.
    /// What `validate` says of `yaml` written in `folder` (a test failure when it accepts it).
    static func problems(_ yaml: String, in folder: URL, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = try write(yaml, in: folder)
        guard case .failure(let p) = Scene.check(path: path) else {
            XCTFail("accepted: \(yaml)", file: file, line: line)
            return ""
        }
        return p.description
    }

    static func write(_ yaml: String, name: String = "scene.yaml", in folder: URL) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A sine of `frequency` Hz written by sox as `tone.wav` in `folder` (for scenes made in tests).
    static func tone(_ frequency: Int = 1_000, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("tone.wav").path
        try SoxTone.write(to: path, frequency: frequency, seconds: 1)
        return path
    }

    /// Writes `yaml` as a scene in `folder`, renders it as 32-bit float and reads it back.
    static func render(yaml: String, in folder: URL) throws -> RenderedAudio {
        let scene = try Scene.load(path: try write(yaml, in: folder))
        let out = folder.appendingPathComponent("rendered.wav").path
        _ = try SceneRenderer(scene: scene).render(to: out, format: .f32)
        return try RenderedAudio(path: out)
    }

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-scenes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Renders a scene of Demos/Scenes as 32-bit float and reads it back.
    static func render(_ name: String, duration: Double? = nil, into folder: URL) throws -> (SceneRenderer.Result, RenderedAudio) {
        let scene = try Scene.load(path: path(name))
        let out = folder.appendingPathComponent((name as NSString).deletingPathExtension + ".wav").path
        let result = try SceneRenderer(scene: scene).render(to: out, format: .f32, duration: duration)
        return (result, try RenderedAudio(path: out))
    }
}

/// Frame-exact checks on the left channel, for tests that play a 12 kHz sine: at 48 kHz its
/// samples run 0, +a, 0, −a from its first frame, so a start one frame off breaks the pattern.
extension RenderedAudio {
    /// Whether frames `range` are the sine from its first frame at `start`, at amplitude `a`.
    func isTone(_ range: Range<Int>, from start: Int, amplitude a: Float) -> Bool {
        range.allSatisfy { n in
            let expected: Float = [0, a, 0, -a][(n - start) % 4]
            return abs(samples[n * channels] - expected) < 0.01 * a
        }
    }

    /// Whether frames `range` are silent.
    func isSilent(_ range: Range<Int>) -> Bool {
        range.allSatisfy { abs(samples[$0 * channels]) < 1e-5 }
    }
}
