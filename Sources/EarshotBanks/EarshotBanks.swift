// A bank's definitions (`SceneBank`, `SceneError`, …) are the content layer's: a game that imports
// EarshotBanks names them without importing EarshotContent too.
@_exported import EarshotContent
