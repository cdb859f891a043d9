import COpenAL

/// The engine core when the device goes away and comes back (AL lock held).
extension EngineCore {
    // MARK: Device loss


    func enterDeviceLost() {
        guard !isDeviceLost else { return }
        isDeviceLost = true
        // A truly lost device plays nothing; stopping also makes a simulated loss faithful.
        for source in voiceSources { alSourceStop(source) }   // music stops its own (MusicSystem.deviceLost)
        pool.suspendAll(now: now)
        audioClock.hold(.deviceLost, source: heardSource)   // nothing is heard until the rebuild
        ALCheck.discard(because: "the device is lost: calls on its sources may fail, and nothing on it is heard any more")
    }

    /// Uploads every loaded clip again into the current context, keeping clip ids and
    /// generations, and points live voices at the new buffers. Buffers of clips being unloaded
    /// are not restored: their voices end. Clips whose samples were not kept
    /// (``keepsClipsForRecovery`` off) are unloaded: their voices end and their handles go stale.
    func reuploadClips() throws(EarshotError) {
        for pending in buffersToDelete {
            pool.stopAll { $0.clipID == pending.clipID }
            freeClipIDs.append(pending.clipID)
        }
        buffersToDelete.removeAll()
        for i in clips.indices where clips[i].info != nil && clips[i].pcm == nil {
            pool.stopAll { $0.clipID == UInt32(i) }
            clips[i].generation &+= 1
            clips[i].info = nil
            clips[i].levels = .empty
            clips[i].loudnessLevels = .empty
            clips[i].buffer = 0
            clips[i].channels = ClipChannelBuffers()   // gone with the old context
            freeClipIDs.append(UInt32(i))
        }
        for i in clips.indices {
            guard let pcm = clips[i].pcm, let info = clips[i].info else { continue }
            let fresh = try upload(pcm, name: info.name)
            // `upload` filed the buffer under a new id: move it back to this slot.
            clips[i].buffer = clips[Int(fresh.id)].buffer
            clips[i].channels = clips[Int(fresh.id)].channels
            clips[Int(fresh.id)].channels = ClipChannelBuffers()
            clips[Int(fresh.id)].info = nil
            clips[Int(fresh.id)].pcm = nil
            clips[Int(fresh.id)].levels = .empty   // the slot keeps its own, measured when it was loaded
            clips[Int(fresh.id)].loudnessLevels = .empty
            clips[Int(fresh.id)].buffer = 0
            clips[Int(fresh.id)].generation &+= 1
            freeClipIDs.append(fresh.id)
        }
        pool.rebindBuffers { [clips] id in Int(id) < clips.count ? clips[Int(id)].buffer : 0 }
        pool.rebindChannelBuffers { [clips] id in Int(id) < clips.count ? clips[Int(id)].channels : ClipChannelBuffers() }
        isDeviceLost = false
    }

    /// After a rebuild on a new device: the audio clock reads the new device's clock (or the
    /// engine clock, or the frames rendered) and runs on from where the loss held it.
    func restartAudioClock() {
        let heard = isLoopback ? nil : device.heardClock()
        usesDeviceClock = heard != nil
        audioClock.restart(source: heardSource)
        audioClock.release(.deviceLost, source: heardSource)
    }
}
