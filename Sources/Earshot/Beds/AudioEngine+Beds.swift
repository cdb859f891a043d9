/// Ambisonic beds (``AmbisonicBed``).
extension AudioEngine {
    /// Opens an ambisonic file as a bed (nothing plays yet): 4, 9 or 16 channels (first, second,
    /// third order), AmbiX or FuMa as `options.format` declares; WAV, CAF, FLAC, Ogg Vorbis and
    /// whatever else the stream and clip decoders read.
    ///
    /// Throws what ``openStream(path:options:)`` throws, and
    /// ``EarshotError/unsupportedEncoding(_:)`` for a channel count that is no full-sphere order;
    /// ``EarshotError/invalidArgument(_:)`` for a bus the engine does not have or a value out of
    /// range; with ``AmbisonicBed/Loading/clip``, ``EarshotError/resourceLimit(_:)`` for a file
    /// over ``Configuration/maxClipBytes`` decoded.
    ///
    /// ```swift
    /// let rain = try engine.openBed(path: "Assets/Ambience/forest-foa.ogg",
    ///                               options: .init(lock: .world, yaw: 45))
    /// try rain.play()
    /// ```
    public func openBed(path: String, options: AmbisonicBed.Options = .init()) throws(EarshotError) -> AmbisonicBed {
        for (name, value) in [("yaw", options.yaw), ("pitch", options.pitch), ("roll", options.roll)] {
            guard value.isFinite, abs(value) <= 36_000 else { throw .invalidArgument("bed \(name) \(value)° is not a finite angle within ±36000°") }
        }
        let hrtf = try withAL { () throws(EarshotError) -> Bool in
            guard !core.isShutDown else { throw .engineShutDown }
            _ = try core.requireBus(options.bus)
            return core.context.hrtfEnabled
        }
        let file: any StreamDecoder
        switch options.loading {
        case .streamed:
            file = try StreamDecoders.open(path: path)
        case .clip:
            var decode = configuration.clipDecodeOptions
            decode.lossyAsFloat = true
            let pcm = try ClipDecoder.decode(path: path, options: decode)
            file = PCMStreamDecoder(pcm, path: path)
        }
        let order: Int
        do throws(EarshotError) {
            order = try AmbisonicFormat.order(channels: file.channels)
        } catch {
            file.close()
            throw .unsupportedEncoding("\(path): \(error.description)")
        }
        let bformat = order == 1 && (options.firstOrder == .bformat || (options.firstOrder == .automatic && hrtf))
        let matrix = bformat ? nil : AmbisonicDecoderMatrix(order: order, kind: options.decoder)
        let decoder = AmbisonicStreamDecoder(file, format: options.format, order: order, matrix: matrix)
        let placement = SoundFieldPlacement(isBFormat: bformat, worldLocked: options.lock == .world,
                                            yaw: options.yaw, pitch: options.pitch, roll: options.roll)
        let stream = try AudioStream(engine: self, decoder: decoder,
                                     options: .init(bus: options.bus, volume: options.volume, numberOfLoops: options.numberOfLoops),
                                     field: .init(placement: placement, speakers: matrix?.speakers ?? []))
        return AmbisonicBed(stream: stream, placement: placement, file: file.facts, order: order, format: options.format)
    }
}
