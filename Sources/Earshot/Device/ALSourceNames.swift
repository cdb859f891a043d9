import COpenAL

/// Makes OpenAL source names, checked: the one place the engine's parts (the voice pool's core,
/// the music system) call `alGenSources`.
enum ALSourceNames {
    /// `count` new sources of the current context (none for 0), or ``EarshotError/openAL(operation:code:)``
    /// when the context has no more (the device grants a fixed number: 256 by default). The AL
    /// lock must be held.
    static func generate(_ count: Int) throws(EarshotError) -> [ALuint] {
        ALGlobal.lock.assertHeld("alGenSources outside the AL lock")
        guard count > 0 else { return [] }
        ALCheck.expectNoPending(before: "alGenSources")
        var names = [ALuint](repeating: 0, count: count)
        alGenSources(ALsizei(count), &names)
        try ALCheck.throwing("alGenSources(\(count))")
        return names
    }
}
