/// What one ``StressWorkload`` run measured: the engine's side and, when it ran, the raw-OpenAL
/// baseline's, as raw samples (one per frame or per call).
///
/// The figures are not summarized here; ``StressReport`` turns them into quantiles and ratios
/// (what `earshot stress` prints). Times are in seconds unless the name says micros; CPU time is
/// this thread's, measured around each side's work only.
///
/// ```swift
/// let result = try StressWorkload(voices: 64, seconds: 1).run()
/// let ratio = result.baseline.map { result.engine.cpuSeconds / $0.cpuSeconds }
/// ```
public struct StressResult: Sendable {
    /// The engine's side of a run.
    public struct Engine: Sendable {
        /// Voices played (one emitter each).
        public var voices = 0
        /// Voices holding an OpenAL source at the end of the run.
        public var realVoices = 0
        /// Voices running without a source at the end of the run.
        public var virtualVoices = 0
        /// OpenAL sources the engine was granted for voices.
        public var grantedSources = 0
        /// Audio rendered by the timed frames.
        public var renderedSeconds = 0.0
        /// CPU time of the timed frames (moves, `update`, render).
        public var cpuSeconds = 0.0
        /// `engine.update()` alone, one sample per frame, in µs.
        public var updateMicros: [Double] = []
        /// Computing and setting every emitter's position (one `batch`), one sample per frame, in µs.
        public var moveMicros: [Double] = []
        /// Heap allocations over the timed frames, per frame (0 when not counted).
        public var allocationsPerFrame = 0.0
        /// Each voice's `play`, in µs.
        public var playMicros: [Double] = []
        /// Heap allocations over all the timed `play` calls (0 when not counted).
        public var playAllocations = 0
        /// Voices the pool stole during the run.
        public var steals = 0
        /// Output frames of the timed frames that the engine's output limiter turned down (the
        /// mix of many voices exceeds full scale: the limiter works, and is counted, in every frame).
        public var limitedFrames = 0

        public init() {}
    }

    /// The raw-OpenAL side of a run.
    public struct Baseline: Sendable {
        /// Sources played (as many as the engine had real voices; 0 if OpenAL granted none).
        public var sources = 0
        /// CPU time of the baseline's frames (moves and render).
        public var cpuSeconds = 0.0
        /// Audio rendered by those frames.
        public var renderedSeconds = 0.0
        /// `alSourcePlay` alone, timed one by one in the situation the engine's plays were timed in, in µs.
        public var playMicros: [Double] = []

        public init() {}
    }

    /// The engine's figures.
    public var engine: Engine
    /// The baseline's figures, or nil when it did not run (`withBaseline: false`, update-only, live).
    public var baseline: Baseline?
    /// Whether allocations were counted (the ``AllocationCounter`` was active); when false the
    /// allocation figures are 0 and mean nothing.
    public var allocationsCounted: Bool

    public init(engine: Engine, baseline: Baseline?, allocationsCounted: Bool) {
        self.engine = engine
        self.baseline = baseline
        self.allocationsCounted = allocationsCounted
    }
}
