/// The core as the rooms' host (AL lock held): ``RoomStage`` owns the geometry and computes each
/// positioned voice's path; the core hands it the voices and places them where they are heard.
extension EngineCore: RoomHost {
    var voiceCapacity: Int { pool.capacity }
    var playbackHeld: Bool { pauseAllExcept != nil || interruptionHold }

    func forEachPositionedVoice(_ body: (Int, UInt32, Vector3) -> Void) { pool.forEachPositioned(body) }

    func attenuation(ofSlot slot: Int, at position: Vector3) -> Float { pool.attenuation(ofSlot: slot, at: position) }

    func setHeard(ofSlot slot: Int, position: Vector3?, filter: LowPassFilter) {
        pool.setHeard(ofSlot: slot, position: position, filter: filter)
    }

    var roomReverbChannels: Int { environment.roomReverbChannels }

    func setRoomReverb(channel: Int, reverb: ReverbProperties, pan: Vector3) {
        do throws(EarshotError) {
            try environment.setRoomReverb(channel: channel, reverb: reverb, pan: pan, core: self)
        } catch {
            // Only AL_OUT_OF_MEMORY gets here: the channel keeps its last reverb, the next frame tries again.
        }
    }

    func setRoomSend(ofSlot slot: Int, channel: Int) {
        pool.setRoomSend(ofSlot: slot, to: channel < 0 ? 0 : environment.roomReverbSlot(channel, core: self))
    }

    func slot(of id: VoiceID) -> Int? { pool.slot(id) }
}
