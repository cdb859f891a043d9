// libFuzzer's entry point for CAFFuzz (see CAFFuzz.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    CAFFuzz.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}
