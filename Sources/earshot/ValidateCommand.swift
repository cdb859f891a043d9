import ArgumentParser
import Foundation
import Earshot
import EarshotScenes

/// `earshot validate SCENE`: every problem of a scene file, with file, line and key.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract:
            "Check a scene or a bank (YAML) without playing it: unknown keys, missing clips, bad values, unknown ids, and warnings.",
        discussion: """
            Prints a one-line summary on stdout and exits 0 for a valid scene. Otherwise prints \
            every problem as `earshot: FILE:LINE:COLUMN: KEY: reason` on stderr and exits 1. \
            Warnings — an event with no effect, a fade shorter than the engine plays, an emitter \
            never heard, a clip never used — are printed as `earshot: warning: FILE:LINE:COLUMN: KEY: …` \
            and leave the exit status 0, unless --strict. --json prints everything as one JSON \
            object on stdout instead. The scene format is described in Demos/Scenes/README.md. \
            A bank — a YAML file without `duration:` and without a timeline (clips, sounds, \
            buses, snapshots, zones, music, include) — is checked as a bank, with the banks it \
            includes: their problems name their own files.
            """)

    @Argument(help: "The scene or bank file (.yaml).")
    var scene: String

    @Flag(name: .long, help: "Treat warnings as errors (exit 1).")
    var strict = false

    @Flag(name: .long, help: "Also list each clip's loudness (LUFS) and what each sound's `loudness:` does to it.")
    var loudness = false

    @Flag(name: .long, help: "Print problems and warnings as JSON on stdout.")
    var json = false

    func run() throws {
        if SceneBank.isBank(path: scene) {
            let result = SceneBank.check(path: scene)
            // A bank's warnings: old linear gains and likely unit slips, its includes' too.
            defer { if loudness, !json, let b = try? result.get() { printLoudness(clips: b.clips, sounds: b.sounds) } }
            // Its line table's findings too (SceneWarnings+Dialogue.swift: each voice file's header read).
            let bank = try? result.get()
            return try report(result, warnings: (bank?.warnings ?? []) + (bank?.dialogueWarnings() ?? [])) { b in
                "\(scene): ok — bank \"\(b.name)\", \(b.clips.count) clips, \(b.sounds.count) sounds, \(b.snapshots.count) snapshots, "
                    + "\(b.buses.count) buses, \(b.zones.count) zones, \(b.music.count) music tracks"
                    + (b.dialogue.map { ", \($0.table.lines.count) dialogue lines in \($0.table.locales.count) locales" } ?? "")
                    + (b.includedFiles.isEmpty
                        ? "" : ", \(b.includedFiles.count) included file\(b.includedFiles.count == 1 ? "" : "s")")
            }
        }
        let result = Scene.check(path: scene)
        let warnings = (try? result.get())?.warnings() ?? []
        defer { if loudness, !json, let s = try? result.get() { printLoudness(clips: s.clips, sounds: s.sounds) } }   // ValidateCommand+Loudness.swift
        try report(result, warnings: warnings) { s in
            let moving = s.emitters.filter { $0.path.moves }.count
            return "\(scene): ok — \"\(s.name)\", \(SceneDescription.seconds(s.duration)) s at \(s.sampleRate) Hz, "
                + "\(s.clips.count) clips, \(s.music.count) music tracks, "
                + (s.musicSets.isEmpty ? "" : "\(s.musicSets.count) music sets, ")
                + "\(s.emitters.count) emitters (\(moving) moving), "
                + "\(s.events.count) events"
                + (s.followUps.isEmpty ? "" : " (+ \(s.followUps.count) after named voices)")
                + (s.hrtf ? ", HRTF" : "")
                + (warnings.isEmpty ? "" : ", \(warnings.count) warning\(warnings.count == 1 ? "" : "s")")
        }
    }

    /// What a scene's or a bank's check found: as JSON, or its problems (exit 1), or its warnings
    /// (exit 1 with --strict) and the `summary` of what it defines.
    private func report<Checked>(_ result: Result<Checked, SceneProblems>, warnings: [SceneWarning],
                                 summary: (Checked) -> String) throws {
        let problems: [SceneError] = { if case .failure(let p) = result { return p.problems } else { return [] } }()
        let ok = problems.isEmpty && (!strict || warnings.isEmpty)
        if json {
            try sayJSON(object: Self.json(file: scene, ok: ok, problems: problems, warnings: warnings))
            if !ok { Foundation.exit(1) }
            return
        }
        switch result {
        case .success(let checked):
            for w in warnings { note("earshot: warning: \(w.description)") }
            if strict, !warnings.isEmpty {
                earshotFail("\(scene): \(warnings.count) warning\(warnings.count == 1 ? "" : "s") (--strict)")
            }
            say(summary(checked))
        case .failure(let problems):
            SceneDescription.fail(problems, path: scene)
        }
    }

    /// `{"file":…, "ok":…, "problems":[…], "warnings":[…]}`: each problem
    /// `{"line","column","key","reason"}`, each warning `{"file","line","column","key","message"}`.
    static func json(file: String, ok: Bool, problems: [SceneError], warnings: [SceneWarning]) -> [String: Any] {
        let p = problems.map { e -> [String: Any] in
            if case .invalid(_, let line, let column, let key, let reason) = e {
                return ["line": line, "column": column, "key": key, "reason": reason]
            }
            return ["line": NSNull(), "column": NSNull(), "key": "", "reason": e.description]
        }
        let w = warnings.map { w -> [String: Any] in
            [
                "file": w.file, "line": w.line.map { $0 as Any } ?? NSNull(),
                "column": w.column.map { $0 as Any } ?? NSNull(), "key": w.key, "message": w.message,
            ]
        }
        return ["file": file, "ok": ok, "problems": p, "warnings": w]
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
