import COpenAL
#if canImport(Glibc)
import Glibc
#endif

/// How a stream of 1…``StreamDecoders/maxChannels`` channels reaches OpenAL.
///
/// - **One source** for the counts OpenAL Soft 1.19.1 plays as one buffer: 1 and 2 always
///   (`AL_EXT_float32`), 4, 6, 7 and 8 through `AL_EXT_MCFORMATS` (quad, 5.1, 6.1, 7.1 in WAVE
///   order), which OpenAL places on its virtual loudspeakers and mixes to the device's layout.
///   Checked at the first upload with `alIsExtensionPresent` and `alGetEnumValue`.
/// - **A group of mono sources** for every other count (3, 5, 9…16), or when the extension is
///   missing: one source per channel, started together in one `alSourcePlayv`
///   (``ALContext/start(_:_:)-([ALuint],_)``) so they stay sample-aligned, each placed head-relative at
///   ``speakerPosition(channel:of:)``. An ambisonic decoder (4, 9, 16 channels decoded to virtual
///   loudspeakers) replaces that placement by its own decode, on the same group.
enum StreamLayout {
    /// The float32 buffer format that carries `channels` on one source, nil when there is none
    /// (the stream is split over mono sources). AL lock held.
    static func nativeFormat(channels: Int) -> ALenum? {
        ALGlobal.lock.assertHeld("reading the AL formats outside the AL lock")
        switch channels {
        case 1: return AL_FORMAT_MONO_FLOAT32
        case 2: return AL_FORMAT_STEREO_FLOAT32
        case 4, 6, 7, 8:
            guard alIsExtensionPresent("AL_EXT_MCFORMATS") != 0 else { return nil }
            let name = channels == 4 ? "AL_FORMAT_QUAD32" : channels == 6 ? "AL_FORMAT_51CHN32"
                : channels == 7 ? "AL_FORMAT_61CHN32" : "AL_FORMAT_71CHN32"
            let value = alGetEnumValue(name)
            ALCheck.discard(because: "alGetEnumValue of a name OpenAL does not know sets AL_INVALID_VALUE; 0 then says so")
            return value == 0 || value == -1 ? nil : value
        default: return nil
        }
    }

    /// `AL_FORMAT_BFORMAT3D_FLOAT32` (`AL_EXT_BFORMAT`: four FuMa channels W X Y Z, W at −3 dB),
    /// nil when OpenAL lacks it. AL lock held.
    static func bformat3D() -> ALenum? {
        ALGlobal.lock.assertHeld("reading the AL formats outside the AL lock")
        guard alIsExtensionPresent("AL_EXT_BFORMAT") != 0 else { return nil }
        let value = alGetEnumValue("AL_FORMAT_BFORMAT3D_FLOAT32")
        ALCheck.discard(because: "alGetEnumValue of a name OpenAL does not know sets AL_INVALID_VALUE; 0 then says so")
        return value == 0 || value == -1 ? nil : value
    }

    /// Where channel `channel` of a stream of `count` channels split over mono sources is
    /// placed, head-relative (−z ahead, +x right), one unit away: 3 channels as left, right,
    /// centre (WAVE order); 5 as left, right, centre, rear left, rear right (5.0); any other
    /// count on an even ring from straight ahead clockwise.
    static func speakerPosition(channel: Int, of count: Int) -> Vector3 {
        let degrees: Double
        switch (count, channel) {
        case (3, 0), (5, 0): degrees = -30
        case (3, 1), (5, 1): degrees = 30
        case (3, 2), (5, 2): degrees = 0
        case (5, 3): degrees = -110
        case (5, 4): degrees = 110
        default: degrees = 360 * Double(channel) / Double(max(count, 1))
        }
        let a = degrees * .pi / 180
        return Vector3(Float(sin(a)), 0, Float(-cos(a)))
    }
}
