/// Whether a voice is heard as a point in the world or as its recorded image (FMOD's 2D/3D).
///
/// - ``auto`` (the default): a play with a position or an emitter is a point (a stereo clip
///   folds to mono there, unless it has a ``PlayOptions/spread``); a play without one keeps a
///   stereo clip's image — left and right where they were recorded, `pan` moving it.
/// - ``twoD``: never placed: a position or an emitter given to the play is ignored, and a stereo
///   clip keeps its image (a UI sound, a stereo ambience bed).
/// - ``threeD``: always a point: a stereo clip folds to mono even without a position (then at
///   its `pan` on the unit circle around the listener, as a mono clip).
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// let rain = try engine.loadClip(path: "Assets/Sounds/wind-stereo.caf")
/// var ambience = SoundDefinition(clips: [rain], loop: true)
/// ambience.spatialMode = .twoD                 // its stereo image, wherever it is played
/// var window = PlayOptions(position: Vector3(2, 1, -3))
/// window.spread = 90                           // a stereo clip's channels around the point
/// _ = try engine.play(rain, options: window)
/// ```
public enum SpatialMode: String, Sendable, Equatable, CaseIterable {
    case auto
    case twoD = "2d"
    case threeD = "3d"
}
