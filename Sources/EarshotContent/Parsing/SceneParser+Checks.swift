import Earshot
import Foundation
import Yams

/// The scene parser's problems and the checks it shares across sections: where a problem is, an
/// audio file's reading and header checks, the clips' decoded-audio budget, a play's timing
/// against its clips, and the size limits of lists and mappings.
extension SceneParser {
    /// Where a problem is, for sorting them in file order.
    static func position(_ e: SceneError) -> Int {
        if case .invalid(_, let line, let column, _, _) = e { return line * 100_000 + min(column, 99_999) }
        return 0
    }

    /// Problems in the order a reader fixes them: an included bank's first (what the scene says
    /// about the bank's ids may only follow from them), each file's in file order.
    static func ordered(_ problems: [SceneError], file: String) -> [SceneError] {
        var files: [String] = [], byFile: [String: [SceneError]] = [:]
        for p in problems {
            let f: String
            if case .invalid(let name, _, _, _, _) = p { f = name } else { f = file }
            if byFile[f] == nil { files.append(f) }
            byFile[f, default: []].append(p)
        }
        let order = files.filter { $0 != file } + files.filter { $0 == file }
        return order.flatMap { f in (byFile[f] ?? []).enumerated().sorted {
            (position($0.element), $0.offset) < (position($1.element), $1.offset)
        }.map(\.element) }
    }

    /// A path relative to the scene's folder (absolute paths stay), which must be a readable
    /// audio file the engine can load: as a clip (``ClipFileInfo/checkLoadable(name:)``) or, for
    /// `music`, as a stream (``MusicTrack/checkStreamable(path:)``) — the checks `render` makes
    /// when it loads them, so that a scene `validate` passes is one `render` starts. A clip's
    /// header is kept (for the offsets and loops of its plays) under `clipID`.
    mutating func audioFile(_ node: Node, _ key: String, music: Bool = false, clipID: String? = nil) -> String? {
        guard let (given, path) = existingFile(node, key) else { return nil }
        do throws(EarshotError) {
            let info = try ClipDecoder.inspect(path: path)
            if music {
                do throws(EarshotError) { try MusicTrack.checkStreamable(path: path) } catch {
                    fail(node, key, "cannot stream \(given) as music: \(error.description)")
                    return nil
                }
            } else {
                do throws(EarshotError) { try info.checkLoadable(name: given) } catch {
                    fail(node, key, "cannot play \(given) as a clip: \(error.description)")
                    return nil
                }
                if let clipID { clipInfo[clipID] = info }
            }
        } catch {
            fail(node, key, "cannot read \(given) as audio: \(error.description)")
            return nil
        }
        return path
    }

    /// The file a path names, relative to the scene's folder (absolute paths stay): what was
    /// written and the standardised path, or nil (a problem reported) when it is not a file.
    mutating func existingFile(_ node: Node, _ key: String) -> (given: String, path: String)? {
        guard let given = string(node, key) else { return nil }
        let resolved =
            given.hasPrefix("/") ? given : ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent(given)
        let path = (resolved as NSString).standardizingPath
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            fail(node, key, "no such file: \(given) (looked for \(path); paths are relative to the scene file)")
            return nil
        }
        return (given, path)
    }

    /// A problem when the clips' headers already add up to more decoded audio than the engine a
    /// scene runs on may hold (``AudioEngine/Configuration/maxTotalClipBytes``, its default):
    /// `render` would refuse a clip part-way through loading them. Counted as the engine loads
    /// them — each real file once (symlinks resolved), a stereo file as two channels twice (it
    /// stays stereo, and its channels are kept as mono buffers too, for a balance), more channels
    /// mixed down to mono, 16 bits a sample at least — so only what the
    /// engine would surely refuse is refused.
    mutating func checkClipBudget(_ clips: [SceneClip], at node: Node) {
        var seen = Set<String>()
        var total = 0
        for c in clips {
            guard let info = clipInfo[c.id], let frames = info.frames,
                  seen.insert(URL(fileURLWithPath: c.path).resolvingSymlinksInPath().path).inserted else { continue }
            total += frames * 2 * (info.channels == 2 ? 4 : 1)   // frames <= 2^40: no overflow over 100,000 clips
        }
        let budget = clipMemory ?? AudioEngine.Configuration.defaultMaxTotalClipBytes
        if total > budget {
            fail(
                node, "clips",
                "the clips would take at least \(total) bytes of decoded audio together, over "
                    + (clipMemory != nil
                        ? "the scene's clipMemory of \(budget) bytes"
                        : "the engine's budget of \(budget) (Configuration.maxTotalClipBytes; a scene may set clipMemory: in MiB)")
            )
        }
    }

    /// Problems for a play of `id` (a clip, or a sound's every clip) at `offset` seconds with
    /// `loops` extra passes that ``AudioEngine/play(_:options:)`` would refuse (an offset at or
    /// past a clip's end, passes beyond 2³¹ frames): the engine's own rule,
    /// ``PlayResolver/startFrame(offset:clipFrames:sampleRate:clipName:)`` and
    /// ``PlayResolver/checkPasses(loopCount:clipFrames:clipName:)``, against each clip's header.
    mutating func checkTiming(
        of id: String, offset: Double, loops: Int, offsetNode: Node?, loopsNode: Node?, event: Node, _ key: String
    ) {
        for clip in soundClips[id] ?? [id] {
            guard let info = clipInfo[clip], let frames = info.frames else { continue }
            let name = "clip \(clip)", rate = Int(info.sampleRate.rounded())
            do throws(EarshotError) {
                _ = try PlayResolver.startFrame(offset: offset, clipFrames: frames, sampleRate: rate, clipName: name)
            } catch {
                return fail(offsetNode ?? event, "\(key).offset", Self.reason(error))
            }
            do throws(EarshotError) {
                try PlayResolver.checkPasses(loopCount: loops, clipFrames: frames, clipName: name)
            } catch {
                return fail(loopsNode ?? event, "\(key).loops", Self.reason(error))
            }
        }
    }

    /// An engine error as a scene problem's reason: an invalid argument's own words, without the
    /// "invalid argument: " its description starts with (the key says what was given).
    package static func reason(_ error: EarshotError) -> String {
        if case .invalidArgument(let what) = error { return what }
        return error.description
    }

    /// Whether a list or mapping has at most `limit` entries; a problem naming the limit if not.
    mutating func within(_ node: Node, _ key: String, _ limit: Int, _ what: String) -> Bool {
        let count: Int
        switch node {
        case .sequence(let s): count = s.count
        case .mapping(let m): count = m.count
        case .scalar: return true
        }
        guard count <= limit else {
            fail(node, key, "\(count) \(what); a scene may have at most \(limit)")
            return false
        }
        return true
    }

    /// The names of `after:` events: each must be the `name:` of a play, names are unique, and
    /// every voice an event waits for must be able to play — a chain of `after:` events that
    /// only wait for each other (a cycle) would never run, and is refused.
    mutating func checkAfter(_ followUps: [(followUp: SceneFollowUp, node: Node, index: Int)],
                             namedPlays: [(name: String, node: Node, index: Int, timed: Bool)]) {
        var known: [String: Int] = [:]
        for p in namedPlays {
            if let first = known[p.name] {
                fail(
                    child(p.node, "name"), "events[\(p.index)].name",
                    "the name \"\(p.name)\" is taken by events[\(first)]; names are unique")
            } else {
                known[p.name] = p.index
            }
        }
        // The voices that can play: timed plays, then those after a voice that can — a walk over
        // the follow-ups filed by the voice they wait for, each looked at once (a pass over all of
        // them until none was added took one pass per link of a chain: quadratic).
        var byVoice: [String: [String]] = [:]
        for f in followUps {
            if let name = f.followUp.name { byVoice[f.followUp.after.voice, default: []].append(name) }
        }
        var playable = Set(namedPlays.filter(\.timed).map(\.name))
        var queue = Array(playable)
        while let voice = queue.popLast() {
            for name in byVoice[voice] ?? [] where playable.insert(name).inserted { queue.append(name) }
        }
        for f in followUps {
            let after = f.followUp.after
            let key = after.marker == nil ? "events[\(f.index)].after" : "events[\(f.index)].at.marker"
            let at = after.marker == nil ? child(f.node, "after") : child(child(f.node, "at"), "marker")
            if known[after.voice] == nil {
                fail(
                    at, key,
                    "no play named \"\(after.voice)\"" + Self.didYouMean(after.voice, among: known.keys.sorted())
                        + (known.isEmpty
                            ? " (give a play a name: to wait for it)"
                            : " (named plays: \(known.keys.sorted().joined(separator: ", ")))"))
            } else if !playable.contains(after.voice) {
                fail(
                    at, key,
                    "\"\(after.voice)\" only plays after this event's chain: the after: events wait for each other in a cycle and none would ever run"
                )
            }
        }
    }

    /// The value of key `name` in mapping `node` (for an error's line and column), or the node itself.
    func child(_ node: Node, _ name: String) -> Node {
        for (k, v) in merged(node) { if case .scalar(let ks) = k, ks.string == name { return v } }
        return node
    }
}
