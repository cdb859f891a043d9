// libFuzzer harness for the bank parser (YAML text → SceneBank): the pre-scan, Yams' composer,
// the bank schema and `include:` (paths resolve in /dev/shm/fuzz, where the seeds may leave
// banks to include), exactly as `earshot validate BANK` runs them; and the bank/scene sniffing
// of `earshot info`. Built by `make fuzz` (EARSHOT_FUZZ=1) with -sanitize=fuzzer,address;
// libFuzzer provides `main`. Any problem is an accepted outcome; a crash, a sanitizer report, a
// hang or memory beyond -rss_limit_mb is a finding.
import EarshotScenes

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    let text = String(decoding: bytes, as: UTF8.self)
    _ = SceneBank.isBank(yaml: text)
    switch SceneBank.check(yaml: text, path: "/dev/shm/fuzz/bank.yaml") {
    case .success(let bank):
        precondition(bank.includedFiles.count <= SceneLimits.maxIncludes, "a bank past its include limit")  // trap: a finding
        precondition(bank.sounds.count <= SceneLimits.maxSounds * (SceneLimits.maxIncludes + 1), "a bank past its limits")  // trap: a finding
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

@_cdecl("BankFuzz_main")
public func bankFuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in LLVMFuzzerTestOneInput(data, size) }
}
