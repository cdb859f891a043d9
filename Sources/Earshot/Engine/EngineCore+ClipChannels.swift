import COpenAL

/// A stereo clip's two channels, each as a mono OpenAL buffer (0, 0 for a mono clip).
struct ClipChannelBuffers {
    var left: ALuint = 0
    var right: ALuint = 0
}

// Clips' OpenAL buffers: the clip as loaded, and a stereo clip's channels on their own.
//
// A 2D stereo voice plays its two channels on two mono sources (a balance, VoicePool+Balance.swift):
// OpenAL Soft 1.19.1 cannot lower one channel of a source. Its channel buffers are made when the
// clip is uploaded, the one moment the engine holds its samples (1.19.1 cannot read a buffer
// back, and a loopback engine keeps no copy): a stereo clip takes twice its decoded size in
// OpenAL's memory, and ``AudioEngine/Configuration/maxTotalClipBytes`` counts both.
extension EngineCore {
    /// Bytes a loaded clip of `byteCount` decoded bytes and `channels` channels takes from the
    /// clip budget: a stereo clip's channel buffers count too.
    static func budgetBytes(_ byteCount: Int, channels: Int) -> Int {
        // Saturating: a byte count near Int.max is refused by any budget rather than wrapped.
        guard channels == 2 else { return byteCount }
        let (doubled, overflow) = byteCount.multipliedReportingOverflow(by: 2)
        return overflow ? .max : doubled
    }

    /// One OpenAL buffer holding `pcm` (mono or stereo, 16-bit or float).
    static func makeBuffer(_ pcm: PCMAudio, name: String) throws(EarshotError) -> ALuint {
        let format: ALenum
        switch (pcm.samples, pcm.channels) {
        case (.int16, 1): format = AL_FORMAT_MONO16
        case (.int16, _): format = AL_FORMAT_STEREO16
        case (.float32, 1): format = AL_FORMAT_MONO_FLOAT32
        case (.float32, _): format = AL_FORMAT_STEREO_FLOAT32
        }
        return try ALObject.make(generate: { alGenBuffers(1, &$0) }, "alGenBuffers", setUp: { b in
            switch pcm.samples {
            case .int16(let s): s.withUnsafeBytes { alBufferData(b, format, $0.baseAddress, ALsizei($0.count), ALsizei(pcm.sampleRate)) }
            case .float32(let s): s.withUnsafeBytes { alBufferData(b, format, $0.baseAddress, ALsizei($0.count), ALsizei(pcm.sampleRate)) }
            }
        }, "alBufferData(\(name))", delete: { alDeleteBuffers(1, &$0) })
    }

    /// A stereo clip's channel buffers (none for mono).
    static func makeChannelBuffers(_ pcm: PCMAudio, name: String) throws(EarshotError) -> ClipChannelBuffers {
        guard pcm.channels == 2 else { return ClipChannelBuffers() }
        let left = try makeBuffer(pcm.channel(0), name: name + " (left channel)")
        do {
            let right = try makeBuffer(pcm.channel(1), name: name + " (right channel)")
            return ClipChannelBuffers(left: left, right: right)
        } catch {
            var b = left
            alDeleteBuffers(1, &b)
            throw error
        }
    }

    static func delete(_ channels: ClipChannelBuffers) {
        guard channels.left != 0 else { return }
        var b = [channels.left, channels.right]
        alDeleteBuffers(2, &b)
    }
}
