/// Decodes Apple IMA4 ADPCM (the `ima4` format of CAF and QuickTime) to 16-bit PCM, bit-exact
/// with ffmpeg's `adpcm_ima_qt` decoder.
///
/// Layout: a packet is 64 frames. For each channel in turn it holds a 34-byte block: a 2-byte
/// big-endian preamble (upper 9 bits: the predictor's top bits; lower 7 bits: the step index)
/// followed by 32 bytes of 4-bit codes, low nibble first.
///
/// Rules that make the output match ffmpeg's (libavcodec/adpcm.c) exactly:
/// - Each channel keeps a running predictor and step index across packets, starting at 0 / 0.
/// - At each block, if the preamble's step index equals the running one *and* the preamble's
///   predictor is within 127 of the running predictor, the running (full-precision) predictor
///   is kept; otherwise both are reset from the preamble. Encoders write the running state
///   rounded to 9 bits, so this continues the waveform without a 7-bit jump at each packet.
/// - A preamble step index above 88 is invalid: the decode fails with
///   ``EarshotError/malformedFile(_:)`` naming the packet (ffmpeg rejects that packet too).
/// - Per code: `diff = step/8 (+ step if bit 2) (+ step/2 if bit 1) (+ step/4 if bit 0)`, negated
///   when bit 3 is set; the predictor is clamped to Int16 and the index to 0…88.
///
/// The decoder allocates only its output and is safe on any bytes: it never reads outside the
/// buffer it is given.
///
/// ```swift
/// let packets = 10
/// let bytes = [UInt8](repeating: 0, count: packets * 2 * IMA4Decoder.bytesPerChannelBlock)
/// var decoder = IMA4Decoder(channels: 2)
/// var pcm = [Int16](repeating: 0, count: packets * IMA4Decoder.framesPerPacket * 2)
/// try bytes.withUnsafeBytes { input in
///     try pcm.withUnsafeMutableBufferPointer { try decoder.decode(packets: input, count: packets, into: $0) }
/// }
/// ```
public struct IMA4Decoder: Sendable {
    /// Frames in one packet.
    public static let framesPerPacket = 64
    /// Bytes of one channel's block in a packet.
    public static let bytesPerChannelBlock = 34

    /// Channels per frame.
    public let channels: Int
    /// Bytes in one packet (34 × channels).
    public var bytesPerPacket: Int { channels * Self.bytesPerChannelBlock }

    private var predictors: [Int32]
    private var stepIndices: [Int32]

    /// A decoder in its initial state (predictor 0 and step index 0 on every channel).
    public init(channels: Int) {
        precondition(channels > 0, "IMA4Decoder needs at least one channel")
        self.channels = channels
        predictors = [Int32](repeating: 0, count: channels)
        stepIndices = [Int32](repeating: 0, count: channels)
    }

    /// Decodes `count` whole packets from `input` into interleaved samples at the start of
    /// `output`, which must hold `count × 64 × channels` samples.
    ///
    /// `firstPacketNumber` only labels errors. Throws ``EarshotError/malformedFile(_:)`` on a step
    /// index above 88; the samples of packets before the bad one are already written.
    public mutating func decode(packets input: UnsafeRawBufferPointer, count: Int,
                                into output: UnsafeMutableBufferPointer<Int16>,
                                firstPacketNumber: Int = 0) throws(EarshotError) {
        let c = channels
        // Checked products: a huge count is the caller's error, named, not an overflow trap.
        let (inBytes, o1) = count.multipliedReportingOverflow(by: c * Self.bytesPerChannelBlock)
        let (outSamples, o2) = count.multipliedReportingOverflow(by: Self.framesPerPacket * c)
        precondition(count >= 0 && !o1 && input.count >= inBytes,
                     "IMA4Decoder: \(input.count) bytes do not hold \(count) packets")
        precondition(!o2 && output.count >= outSamples,
                     "IMA4Decoder: output too small for \(count) packets")
        guard count > 0, let src = input.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let dst = output.baseAddress else { return }
        try IMA4Tables.shared.withPointers { (diffs, next) throws(EarshotError) in
            try predictors.withUnsafeMutableBufferPointer { (preds) throws(EarshotError) in
                try stepIndices.withUnsafeMutableBufferPointer { (steps) throws(EarshotError) in
                    for p in 0..<count {
                        let packet = src + p * c * Self.bytesPerChannelBlock
                        let outPacket = dst + p * Self.framesPerPacket * c
                        for ch in 0..<c {
                            let block = packet + ch * Self.bytesPerChannelBlock
                            let header = Int32(Int16(bitPattern: UInt16(block[0]) << 8 | UInt16(block[1])))
                            let headerStep = header & 0x7F
                            let headerPredictor = header & ~0x7F
                            var pred = preds[ch]
                            var index = steps[ch]
                            if index != headerStep || abs(headerPredictor - pred) > 0x7F {
                                index = headerStep
                                pred = headerPredictor
                            }
                            guard index <= 88 else {
                                preds[ch] = pred
                                steps[ch] = index
                                throw .malformedFile(
                                    "IMA4 packet \(firstPacketNumber + p), channel \(ch): step index \(index) is above 88"
                                )
                            }
                            var out = outPacket + ch
                            var row = Int(index) &* 16
                            for i in 2..<Self.bytesPerChannelBlock {
                                let byte = Int(block[i])
                                let lo = row &+ (byte & 0x0F)
                                pred = clampInt16(pred &+ diffs[lo])
                                row = Int(next[lo])
                                out.pointee = Int16(truncatingIfNeeded: pred)
                                out += c
                                let hi = row &+ (byte >> 4)
                                pred = clampInt16(pred &+ diffs[hi])
                                row = Int(next[hi])
                                out.pointee = Int16(truncatingIfNeeded: pred)
                                out += c
                            }
                            preds[ch] = pred
                            steps[ch] = Int32(row >> 4)
                        }
                    }
                }
            }
        }
    }
}

@inline(__always)
private func clampInt16(_ x: Int32) -> Int32 {
    min(max(x, -32768), 32767)
}

/// The IMA ADPCM step table folded with the index table: for every (step index, code) pair, the
/// signed predictor change and the next row (next step index × 16). One lookup per sample.
final class IMA4Tables: Sendable {
    static let shared = IMA4Tables()

    /// The 89 IMA ADPCM quantiser steps.
    static let steps: [Int32] = [
        7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45,
        50, 55, 60, 66, 73, 80, 88, 97, 107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307,
        337, 371, 408, 449, 494, 544, 598, 658, 724, 796, 876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066,
        2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428, 4871, 5358, 5894, 6484, 7132, 7845, 8630, 9493, 10442, 11487,
        12635, 13899,
        15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794, 32767,
    ]
    /// Step index change per code (the sign bit does not matter).
    static let indexChange: [Int32] = [-1, -1, -1, -1, 2, 4, 6, 8, -1, -1, -1, -1, 2, 4, 6, 8]

    let diffs: [Int32]
    let next: [UInt16]

    private init() {
        var diffs = [Int32](repeating: 0, count: 89 * 16)
        var next = [UInt16](repeating: 0, count: 89 * 16)
        for index in 0..<89 {
            let step = Self.steps[index]
            for code in 0..<16 {
                var diff = step >> 3
                if code & 4 != 0 { diff += step }
                if code & 2 != 0 { diff += step >> 1 }
                if code & 1 != 0 { diff += step >> 2 }
                if code & 8 != 0 { diff = -diff }
                diffs[index * 16 + code] = diff
                let n = min(max(Int32(index) + Self.indexChange[code], 0), 88)
                next[index * 16 + code] = UInt16(n * 16)
            }
        }
        self.diffs = diffs
        self.next = next
    }

    func withPointers<R>(
        _ body: (UnsafePointer<Int32>, UnsafePointer<UInt16>) throws(EarshotError) -> R
    ) throws(EarshotError) -> R {
        // Both arrays are immutable and non-empty; their storage outlives the call.
        try diffs.withUnsafeBufferPointer { (d) throws(EarshotError) -> R in
            try next.withUnsafeBufferPointer { (n) throws(EarshotError) -> R in
                guard let dp = d.baseAddress, let np = n.baseAddress else {
                    preconditionFailure("IMA4Tables: empty table")  // trap: the tables always hold 1,424 entries
                }
                return try body(dp, np)
            }
        }
    }
}
