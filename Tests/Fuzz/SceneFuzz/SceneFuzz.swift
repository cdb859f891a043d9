// libFuzzer harness for the scene parser (YAML text → Scene): the pre-scan, Yams' composer and
// the schema, exactly as `earshot validate` runs them. Built by `make fuzz` through SwiftPM
// (EARSHOT_FUZZ=1 adds this executable to Package.swift) with -sanitize=fuzzer,address; libFuzzer
// provides `main`. Any scene problem is an accepted outcome; a crash, a sanitizer report, a hang
// or memory beyond -rss_limit_mb is a finding.
import EarshotScenes

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    let text = String(decoding: bytes, as: UTF8.self)
    switch Scene.check(yaml: text, path: "/dev/shm/fuzz/scene.yaml") {
    case .success(let scene):
        precondition(scene.duration > 0 && scene.events.count <= SceneLimits.maxEvents, "a scene past its limits")  // trap: a finding
    case .failure(let problems):
        precondition(!problems.problems.isEmpty, "a failure without a problem")  // trap: a finding
        _ = problems.description
    }
    return 0
}

// SwiftPM links an executable's entry point as `<Target>_main`; libFuzzer's own `main` is then
// not linked, so this entry point hands the command line to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@_cdecl("SceneFuzz_main")
public func sceneFuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in LLVMFuzzerTestOneInput(data, size) }
}
