import Earshot
import EarshotTestSupport
import Foundation

/// A folder of its own per test, with a 440 Hz tone (0.25 s: 110 whole periods, so it loops
/// without a seam) and a 1 kHz one, made by sox; banks are written into it.
struct BankFixture {
    let folder: String

    init(_ name: String) throws {
        folder = NSTemporaryDirectory() + "earshot-banks-\(name)-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder + "/audio", withIntermediateDirectories: true)
        try SoxTone.write(to: folder + "/audio/a440.wav", frequency: 440, amplitude: 0.5, seconds: 0.25)
        try SoxTone.write(to: folder + "/audio/k1.wav", frequency: 1000, amplitude: 0.5, seconds: 0.1)
    }

    func path(_ file: String) -> String { folder + "/" + file }

    /// Writes `text` to `file` in the folder (replacing it by a rename, as editors save).
    @discardableResult
    func write(_ file: String, _ text: String) throws -> String {
        let p = path(file)
        let dir = (p as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let tmp = dir + "/.\((file as NSString).lastPathComponent).tmp"
        try text.write(toFile: tmp, atomically: false, encoding: .utf8)
        guard rename(tmp, p) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return p
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }

    static func engine() throws -> AudioEngine {
        try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    }
}

extension BankFixture {
    /// `count` game frames of a loopback engine (update, then 800 frames rendered, each).
    static func frames(_ engine: AudioEngine, _ count: Int) throws -> [Float] {
        var out: [Float] = []
        for _ in 0..<count {
            engine.update(deltaTime: 800.0 / 48_000)
            out += try engine.render(frames: 800)
        }
        return out
    }
}
