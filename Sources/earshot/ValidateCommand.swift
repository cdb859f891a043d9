import ArgumentParser
import Earshot
import EarshotScenes

/// `earshot validate SCENE`: every problem of a scene file, with file, line and key.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a scene (YAML) without playing it: unknown keys, missing clips, bad values, unknown ids.",
        discussion: """
            Prints a one-line summary on stdout and exits 0 for a valid scene. Otherwise prints \
            every problem as `earshot: FILE:LINE:COLUMN: KEY: reason` on stderr and exits 1. The \
            scene format is described in Demos/Scenes/README.md.
            """)

    @Argument(help: "The scene file (.yaml).")
    var scene: String

    func run() throws {
        switch Scene.check(path: scene) {
        case .success(let s):
            let moving = s.emitters.filter { $0.path.moves }.count
            print("\(scene): ok — \"\(s.name)\", \(SceneDescription.seconds(s.duration)) s at \(s.sampleRate) Hz, "
                  + "\(s.clips.count) clips, \(s.music.count) music tracks, \(s.emitters.count) emitters (\(moving) moving), "
                  + "\(s.events.count) events" + (s.hrtf ? ", HRTF" : ""))
        case .failure(let problems):
            SceneDescription.fail(problems, path: scene)
        }
    }
}

enum SceneDescription {
    static func seconds(_ v: Double) -> String { v.rounded() == v ? String(Int(v)) : String(v) }

    /// Loads a scene for render or play; an invalid one prints every problem and exits 1.
    static func load(_ path: String) -> Scene {
        switch Scene.check(path: path) {
        case .success(let scene): return scene
        case .failure(let problems): fail(problems, path: path)
        }
    }

    /// Prints every problem as `earshot: …` on stderr and exits 1.
    static func fail(_ problems: SceneProblems, path: String) -> Never {
        for p in problems.problems.dropLast() { note("earshot: \(p.description)") }
        earshotFail(problems.problems.last?.description ?? "\(path): invalid scene")
    }
}

/// The CLI's `fail`, reachable where a local `fail` shadows it.
func earshotFail(_ message: String) -> Never { fail(message) }
