// `earshot-fuzz`: the structured fuzzers of issue 24, as long runs (`make fuzz-values`).
//
//   earshot-fuzz scene-values CASES [SEED]     scenes from every documented key, validate + render
//   earshot-fuzz api OPERATIONS [SEED]         random public calls on a loopback engine
//   earshot-fuzz banks CASES [SEED]            banks from every bank key and include graphs: validate, load, edit, reload
//   earshot-fuzz rooms CASES [SEED]            mutated room/portal geometries: validate and engine agree, renders stay finite
//   earshot-fuzz lines CASES [SEED]            line tables (YAML, CSV) and .srt/.vtt files from their structures, edited
//
// Prints a summary every so often and the findings at the end; exits 0 with no finding, 1 with
// some (a trap or signal ends it by that signal: also a finding).
import EarshotFuzzing
@preconcurrency import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 3, let count = Int(arguments[2]), count > 0 else {
    FileHandle.standardError.write(Data("usage: earshot-fuzz scene-values|api|banks|lines|rooms COUNT [SEED]\n".utf8))
    exit(2)
}
let seed = arguments.count > 3 ? UInt64(arguments[3]) ?? 1 : 1
let assets = ProcessInfo.processInfo.environment["EARSHOT_ASSETS"] ?? "Assets"
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
let findings: [String]
switch arguments[1] {
case "show-scene":
    // One generated scene and what validate says of it (for reading the generator's output).
    let (yaml, problems) = SceneValueFuzzer(assets: assets, seed: seed).sample(index: count)
    say(yaml)
    say(problems)
    exit(0)
case "scene-values":
    var fuzzer = SceneValueFuzzer(assets: assets, seed: seed)
    fuzzer.bedChance = 0.3   // ambisonic beds (issue 39)
    // EARSHOT_FUZZ_MAX_OFFSET=0.1 keeps play offsets inside the shortest clip.
    if let v = ProcessInfo.processInfo.environment["EARSHOT_FUZZ_MAX_OFFSET"].flatMap(Double.init) { fuzzer.maxOffset = v }
    let report = fuzzer.run(cases: count, log: say)
    say(report.summary)
    findings = report.findings
case "banks":
    let report = BankValueFuzzer(assets: assets, seed: seed).run(cases: count, log: say)
    say(report.summary)
    findings = report.findings
case "rooms":
    let report = RoomGeometryFuzzer(seed: seed).run(cases: count, log: say)
    say(report.summary)
    findings = report.findings
case "lines":
    let report = LineTableFuzzer(seed: seed).run(cases: count, log: say)
    say(report.summary)
    findings = report.findings
case "api":
    let report = APIOperationFuzzer(assets: assets, seed: seed).run(operations: count, log: say)
    say(report.summary)
    findings = report.findings
default:
    FileHandle.standardError.write(Data("earshot-fuzz: unknown fuzzer \(arguments[1]) (scene-values, api, banks, lines or rooms)\n".utf8))
    exit(2)
}
exit(FuzzDriver.reportFindings(findings, say: say))
