/// The version of the Earshot package: the one place it is written. `CHANGELOG.md`'s newest
/// heading names the same version (a test checks it), and `earshot --version` prints it.
///
/// Versions follow semantic versioning; until 1.0 a minor release may change the API, and
/// CHANGELOG.md says how.
///
/// ```swift
/// print("Earshot \(EarshotVersion.string)")
/// ```
public enum EarshotVersion {
    /// The version, `major.minor.patch`.
    public static let string = "0.12.0"
}
