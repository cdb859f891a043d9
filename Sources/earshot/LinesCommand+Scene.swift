import Earshot
import EarshotContent
import EarshotScenes
import Foundation

/// `earshot lines --scene SCENE.yaml --srt OUT.srt`: the scene's line table checked, and the
/// subtitles of the scene rendered offline — `earshot render SCENE --subtitles`'s render
/// (`SceneRenderer`), without an audio file.
extension LinesCommand {
    /// The scene's `dialogue:` section; a scene without one exits 1.
    static func dialogue(of scene: Scene) -> SceneDialogue {
        guard let d = scene.dialogue else {
            fail("\(scene.file) has no dialogue: section (dialogue: { lines: FILE } names its line table)")
        }
        return d
    }

    /// What the scene's `say:` lines showed, rendered offline; a render that fails exits 1.
    static func rendered(_ scene: Scene) -> [SubtitleEntry] {
        do throws(EarshotError) {
            return try SceneRenderer(scene: scene).renderWithoutAudio().subtitles
        } catch {
            fail(error.cliDescription + " (nothing written)")
        }
    }

    /// Whether two paths name one file (after links and `..`).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        URL(fileURLWithPath: a).resolvingSymlinksInPath().path == URL(fileURLWithPath: b).resolvingSymlinksInPath().path
    }
}
