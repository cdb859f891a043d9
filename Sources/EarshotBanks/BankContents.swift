import Earshot
import EarshotContent
import Foundation

/// What a loaded bank holds in its engine: the bank as read, and the engine objects made from
/// it, by id. Built by ``BankLoader``; touched under the bank's lock only.
struct BankContents {
    var bank: SceneBank
    /// Clips by id, and by the file each was loaded from (two ids of one file share a clip).
    var clips: [String: Clip] = [:]
    var clipsByPath: [String: Clip] = [:]
    var sounds: [String: Sound] = [:]
    var snapshots: [String: Snapshot] = [:]
    var zones: [String: ReverbZone] = [:]
    /// The bank's rooms and portals (`rooms:`, `portals:`), for the game to set.
    var geometry = AcousticGeometry()
    var music: [String: SceneMusic] = [:]
    /// Tracks loaded by ``SoundBank/music(_:)``, by id (each loaded at its first call).
    var tracks: [String: MusicTrack] = [:]
    /// Tracks a reload took out (another file, or gone) while they played, fading out: still
    /// the bank's, so that ``SoundBank/unload()`` stops them too. Dropped once they have stopped.
    var retiredTracks: [MusicTrack] = []
    /// Music sets as read, and those made by ``SoundBank/musicSet(_:)`` (at its first call).
    var musicSets: [String: SceneMusicSet] = [:]
    var sets: [String: MusicSet] = [:]
    /// The duckings the bank set, as (target, source) bus names.
    var duckings: Set<BusPair> = []
    /// The buses whose gain the bank set.
    var busGains: Set<String> = []
    /// The buses the bank gave curves.
    var busCurves: Set<String> = []
    /// The buses the bank put under a parent (`parent:`), and the VCAs it defined.
    var busParents: Set<String> = []
    var vcas: Set<String> = []
    /// The line table and locale the bank set on the engine (SoundBank+Dialogue.swift).
    var dialogue: SceneDialogue?

    struct BusPair: Hashable {
        var target: String
        var source: String
    }

    init(bank: SceneBank) { self.bank = bank }

    /// Bytes of OpenAL memory the bank's clips take (a stereo clip's channel buffers included).
    var clipBytes: Int { clipsByPath.values.reduce(0) { $0 + $1.info.memoryBytes } }
}
