import COpenAL

/// Making one OpenAL object that is of no use until it is set up (a buffer and its samples, an
/// effect and its type): the one place the failure path of a creation is written. Call under the
/// AL lock, as every AL call.
enum ALObject {
    /// A new object from `generate`, then `setUp` on it, each step checked (`generating`,
    /// `settingUp` name them in the error). When the setup fails the object is deleted with
    /// `delete` and the setup's error thrown: the caller gets nothing to clean up.
    static func make(generate: (inout ALuint) -> Void, _ generating: @autoclosure () -> String,
                     setUp: (ALuint) -> Void, _ settingUp: @autoclosure () -> String,
                     delete: (inout ALuint) -> Void) throws(EarshotError) -> ALuint {
        var object: ALuint = 0
        generate(&object)
        try ALCheck.throwing(generating())
        setUp(object)
        do throws(EarshotError) {
            try ALCheck.throwing(settingUp())
        } catch {
            delete(&object)
            ALCheck.discard(because: "the cleanup of a failed setup already being thrown: its own error adds nothing")
            throw error
        }
        return object
    }
}
