import COpenAL

// The voice pool and stereo clips: how a stereo voice is sent — its image kept (no position),
// folded to a point (positioned, or forced 3D), or its two channels placed around its position
// (a spread). OpenAL Soft 1.19.1's rules behind it are in Spatial/StereoImage.swift. Mono voices
// never come here.
extension VoicePool {
    /// A new voice of a stereo clip: its image flags and spread. A spread voice's distance and
    /// cone are the engine's to apply (OpenAL does not spatialise it), and its channels' angles
    /// follow every move of it and of the listener.
    func noteImage(_ v: inout VoiceState, _ r: ResolvedPlay) {
        v.image = r.image
        if r.image & VoiceState.ImageFlags.spread != 0 {
            spreadInUse = true
            mapsPositions = true
            engineDistanceInUse = true
        }
    }

    /// What OpenAL applies to a spread voice of the engine's (the heard properties `s`): the
    /// whole distance gain and cone, and half of each channel (so that spread 0 is as loud as
    /// the clip folded to mono at that point).
    func spreadGain(_ s: SpatialProperties) -> Float {
        s.attenuation(listenerPosition: listenerPosition, model: distanceModel) * StereoImage.spreadChannelGain
    }

    /// Sends a stereo voice's image: whether OpenAL spatialises it (a point: both channels at
    /// its direction, their mean) or plays its channels at their angles (the recorded image at
    /// `pan`, or a spread around the heard position `s`). Only what changed is sent.
    func pushImage(_ index: Int, to source: ALuint, heard s: SpatialProperties) {
        let image = slots[index].image
        if image & VoiceState.ImageFlags.paired != 0 {
            // Two mono sources (VoicePool+Balance.swift): OpenAL spatialises a mono buffer under
            // either value this file sets, so only the second source's placement goes out.
            pushPartner(index, main: s)
            return
        }
        let spatialize: ALint
        var angles = StereoImage.defaultAngles
        if slots[index].placement == .pan {
            if image & VoiceState.ImageFlags.point != 0 {
                spatialize = AL_TRUE
            } else {
                spatialize = AL_AUTO_SOFT
                angles = StereoImage.panAngles(slots[index].pan)
            }
        } else if image & VoiceState.ImageFlags.spread != 0 {
            spatialize = AL_AUTO_SOFT
            angles = StereoImage.spreadAngles(azimuth: StereoImage.azimuth(ofLocal: local(s)),
                                              spread: voiceSpread[index], stereoPair: stereoPairPanning)
        } else {
            spatialize = AL_TRUE
        }
        let i = Int(source)
        if pushed[i].spatialize != spatialize {
            alSourcei(source, AL_SOURCE_SPATIALIZE_SOFT, spatialize)
            pushed[i].spatialize = spatialize
        }
        if spatialize == AL_AUTO_SOFT, pushed[i].angles.map({ $0 != angles }) ?? true {
            var values: [ALfloat] = [angles.left, angles.right]
            alSourcefv(source, AL_STEREO_ANGLES, &values)
            pushed[i].angles = angles
        }
    }

    /// Heard properties `s` in the OpenAL listener's frame (+x right, +y up, −z ahead).
    private func local(_ s: SpatialProperties) -> Vector3 {
        if s.isRelative { return s.position }
        let d = s.position - listenerPosition
        let back = -listenerAt.normalized
        let right = listenerUp.cross(back).normalized
        let up = back.cross(right)
        return Vector3(d.dot(right), d.dot(up), d.dot(back))
    }
}
