import COpenAL

/// The one place the engine starts OpenAL sources: the voice pool's voices, every stream, the
/// stems of a music set. Several sources given together start in one `alSourcePlayv`, which
/// OpenAL Soft applies under one lock of its mixer: they begin on the same mix, sample-aligned
/// (a group of streams, a set's stems, the channels of a stream split over mono sources).
///
/// Call with the AL lock held (debug builds check it).
///
/// ```swift
/// import COpenAL
/// let stems: [ALuint] = []   // sources whose queues are filled
/// engine.withStreamAL { SourceStarter.start(stems, "starting the stems together") }   // one alSourcePlayv, one check
/// ```
enum SourceStarter {
    /// Starts `sources` together and checks the call through ``ALCheck/after(_:)``: an error is
    /// a bug (the sources are the engine's own and hold queued buffers). Nothing for an empty list.
    static func start(_ sources: [ALuint], _ operation: @autoclosure () -> String) {
        play(sources)
        ALCheck.after(operation())
    }

    /// Starts one source and checks the call, as ``start(_:_:)``.
    static func start(_ source: ALuint, _ operation: @autoclosure () -> String) {
        play(source)
        ALCheck.after(operation())
    }

    /// Starts `sources` together inside an AL section whose caller checks it once at its end
    /// (as the voice pool's service is, by the engine's `play` and `update`): no check per start
    /// on the pool's hot path, the same failure path at the section's end.
    static func play(_ sources: [ALuint]) {
        ALGlobal.lock.assertHeld("starting sources outside the AL lock")
        switch sources.count {
        case 0: return
        case 1: alSourcePlay(sources[0])
        default: alSourcePlayv(ALsizei(sources.count), sources)
        }
    }

    /// Starts one source inside an AL section its caller checks (see ``play(_:)-([ALuint])``).
    static func play(_ source: ALuint) {
        ALGlobal.lock.assertHeld("starting a source outside the AL lock")
        alSourcePlay(source)
    }
}
