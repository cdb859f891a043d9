/// Loading clips (from a path, from bytes in memory such as assets packed in archives, from
/// decoded audio), the decode budget, and unloading.
extension AudioEngine {
    /// Decodes a file (CAF PCM and IMA4 through Earshot's CAF reader; WAV, AIFF, FLAC, Ogg …
    /// through libsndfile and vorbisfile: see ``ClipDecoder``) into an OpenAL buffer.
    ///
    /// - Parameters:
    ///   - path: the file to decode; its path also names the clip in messages.
    ///   - forPositioning: mix a file of more than two channels down to mono (the mean of the
    ///     channels) so that OpenAL can place it in 3D; without it such a file is
    ///     ``EarshotError/unsupportedEncoding(_:)``. A stereo file stays stereo either way: it
    ///     keeps its image when played without a position, and OpenAL folds it to the same mean
    ///     when it is placed (see <doc:StereoAndSpread>).
    ///
    /// A file whose decoded audio would exceed ``Configuration/maxClipBytes``, or what is left of
    /// ``Configuration/maxTotalClipBytes``, throws ``EarshotError/tooLarge(name:what:size:limit:setting:)``
    /// before it is decoded.
    public func loadClip(path: String, forPositioning: Bool = true) throws(EarshotError) -> Clip {
        try loadClip(path: path, forPositioning: forPositioning, maxBytes: configuration.maxClipBytes, setting: nil)
    }

    /// ``loadClip(path:forPositioning:)`` within a tighter limit (a ``ClipBank``'s budget).
    func loadClip(path: String, forPositioning: Bool, maxBytes: Int, setting: String?) throws(EarshotError) -> Clip {
        let audio = try ClipDecoder.decode(
            path: path, options: try budgetedOptions(maxBytes: maxBytes, setting: setting))
        warnIfTruncated(audio, name: path)
        var clip = try loadClip(audio, name: path, forPositioning: forPositioning)
        clip.markers = fileMarkers(name: path, frameCount: audio.frameCount) { () throws(EarshotError) in
            try MarkerReader.read(path: path, frameCount: audio.frameCount)
        }
        return clip
    }

    /// Decodes a file into a clip that carries `markers` instead of the file's own: what
    /// ``loadClip(path:forPositioning:)`` then ``Clip/withMarkers(_:)`` do, unloading the clip
    /// again when a marker is refused.
    ///
    /// ```swift
    /// let line = try engine.loadClip(path: "Assets/Sounds/step.wav",
    ///                                markers: [Marker(name: "hit", seconds: 0.05, sampleRate: 48_000)])
    /// ```
    public func loadClip(path: String, forPositioning: Bool = true, markers: [Marker]) throws(EarshotError) -> Clip {
        let clip = try loadClip(path: path, forPositioning: forPositioning)
        do throws(EarshotError) {
            return try clip.withMarkers(markers)
        } catch {
            unload(clip)
            throw error
        }
    }

    /// Lenient loading (``Configuration/allowsTruncatedClips``) of a file cut short: said once, with
    /// the frames expected and found.
    func warnIfTruncated(_ audio: PCMAudio, name: String) {
        guard let cut = audio.truncation else { return }
        logger.warning(
            "\(EarshotError.oneLine(name)): truncated, loaded as far as it goes: \(EarshotError.oneLine(cut.description))"
        )
    }

    /// The markers `read` finds; when the file's marker chunks cannot be read (or some markers are
    /// past the end of the audio), a warning says so and the clip loads all the same.
    func fileMarkers(name: String, frameCount: Int, _ read: () throws(EarshotError) -> FileMarkers) -> [Marker] {
        do throws(EarshotError) {
            let found = try read()
            if found.leftOut > 0 || found.shortened > 0 {
                logger.warning(
                    "\(EarshotError.oneLine(name)): \(found.leftOut) markers past the end of the audio (\(frameCount) frames) left out, \(found.shortened) regions shortened"
                )
            }
            return found.markers
        } catch {
            logger.warning(
                "\(EarshotError.oneLine(name)): markers unreadable, the clip loads without them: \(error.description)")
            return []
        }
    }

    /// The decoder options for one more clip: the per-clip limit (`maxBytes`, named `setting`),
    /// or what is left of ``Configuration/maxTotalClipBytes`` when that is less — so that the
    /// decoder refuses a clip over the engine's budget from its header, before decoding it.
    func budgetedOptions(maxBytes: Int, setting: String?) throws(EarshotError) -> ClipDecoder.Options {
        let used = try withAL { () throws(EarshotError) -> Int in
            guard !core.isShutDown else { throw .engineShutDown }
            return core.loadedClipBytes
        }
        let left = configuration.maxTotalClipBytes - used
        // The total's room and a ClipBank's budget (a `setting` given) are budgets of memory.
        if left < min(maxBytes, configuration.maxClipBytes) {
            return decodeOptions(maxBytes: left, setting: Self.budgetSetting(used: used), isBudget: true)
        }
        return decodeOptions(maxBytes: maxBytes, setting: setting, isBudget: setting != nil)
    }

    /// How a refusal by the total budget names it.
    static func budgetSetting(used: Int) -> String {
        "Configuration.maxTotalClipBytes, with \(EarshotError.bytes(used)) of clips already loaded"
    }

    /// The engine's decoder options with the limit lowered to `maxBytes` (named `setting`). A
    /// budget (`isBudget`) counts memory, a stereo clip twice as the upload does
    /// (``ClipInfo/memoryBytes``); the per-clip limit it lowers counts decoded bytes.
    func decodeOptions(maxBytes: Int, setting: String?, isBudget: Bool) -> ClipDecoder.Options {
        var options = configuration.clipDecodeOptions
        if maxBytes < options.maxBytes {
            options.maxBytes = max(1, maxBytes)
            options.limitName = setting ?? options.limitName
            options.countsStereoChannelBuffers = isBudget
        }
        return options
    }

    /// Uploads decoded audio into an OpenAL buffer.
    ///
    /// Audio over ``Configuration/maxClipBytes`` or the room left in
    /// ``Configuration/maxTotalClipBytes`` throws ``EarshotError/tooLarge(name:what:size:limit:setting:)``;
    /// no frames or a rate outside ``PlayabilityCheck/clipSampleRates`` is
    /// ``EarshotError/malformedFile(_:)``, more than two channels left unmixed
    /// ``EarshotError/unsupportedEncoding(_:)``.
    public func loadClip(_ audio: PCMAudio, name: String, forPositioning: Bool = true) throws(EarshotError) -> Clip {
        try configuration.clipDecodeOptions.check(
            samples: audio.samples.count, bytesPerSample: audio.samples.bytesPerSample, channels: audio.channels,
            name: name)
        // Stereo stays stereo: its image is kept where it is not placed, and OpenAL folds it to
        // the mean of its channels where it is (VoicePool+Image.swift).
        let pcm = forPositioning && audio.channels > 2 ? audio.downmixedToMono() : audio
        guard pcm.channels <= 2 else {
            throw .unsupportedEncoding(
                "\(name): \(pcm.channels) channels (clips are mono or stereo; load it for positioning to mix it down)")
        }
        guard pcm.frameCount > 0 else {
            throw .malformedFile("\(name): no audio frames")
        }
        guard PlayabilityCheck.clipSampleRates.contains(pcm.sampleRate) else {
            throw .malformedFile("\(name): sample rate \(pcm.sampleRate) Hz")
        }
        return try withAL { () throws(EarshotError) -> Clip in
            guard !core.isShutDown else { throw .engineShutDown }
            // Exact, under the lock (loads on other threads may have taken the room meanwhile).
            let used = core.loadedClipBytes
            // A stereo clip's channel buffers count too (Engine/EngineCore+ClipChannels.swift).
            let bytes = EngineCore.budgetBytes(pcm.byteCount, channels: pcm.channels)
            guard bytes <= configuration.maxTotalClipBytes - used else {
                throw .tooLarge(
                    name: name, what: "decoded audio", size: bytes,
                    limit: max(0, configuration.maxTotalClipBytes - used), setting: Self.budgetSetting(used: used))
            }
            return try core.upload(pcm, name: name)
        }
    }

    /// Releases a clip's buffer, stopping the voices still playing it first.
    public func unload(_ clip: Clip) {
        withAL {
            guard !core.isShutDown else { return }
            core.unload(clip)
        }
    }

    /// Whether any voice (real or virtual) is still playing `clip` (false for an unloaded clip or a
    /// shut-down engine). Used by ``ClipBank`` to evict only idle clips.
    func isClipInUse(_ clip: Clip) -> Bool {
        withAL {
            guard !core.isShutDown, core.isLoaded(clip) else { return false }
            return core.pool.count(usingClip: clip.id) > 0
        }
    }

    /// Decodes a file held in memory (any format ``ClipDecoder`` reads) into an OpenAL buffer.
    ///
    /// `name` labels errors and ``ClipInfo/name``. Same results and errors as
    /// ``loadClip(path:forPositioning:)`` on the same bytes.
    ///
    /// ```swift
    /// let bytes = try FileBytes.read(path: "Assets/Sounds/coin.wav")   // or out of your asset archive
    /// let coin = try engine.loadClip(data: bytes, name: "pak/coin.wav")
    /// ```
    public func loadClip(data: [UInt8], name: String, forPositioning: Bool = true) throws(EarshotError) -> Clip {
        try loadClip(
            data: data, name: name, forPositioning: forPositioning, maxBytes: configuration.maxClipBytes, setting: nil)
    }

    /// ``loadClip(data:name:forPositioning:)`` within a tighter limit (a ``ClipBank``'s budget).
    func loadClip(
        data: [UInt8], name: String, forPositioning: Bool, maxBytes: Int, setting: String?
    ) throws(EarshotError) -> Clip {
        let audio = try ClipDecoder.decode(
            data: data, name: name, options: try budgetedOptions(maxBytes: maxBytes, setting: setting))
        warnIfTruncated(audio, name: name)
        var clip = try loadClip(audio, name: name, forPositioning: forPositioning)
        clip.markers = fileMarkers(name: name, frameCount: audio.frameCount) { () throws(EarshotError) in
            try MarkerReader.read(data: data, name: name, frameCount: audio.frameCount)
        }
        return clip
    }
}
