// A scene's definitions (`Scene`, its sounds, events, errors) are the content layer's: a program
// that imports EarshotScenes names them without importing EarshotContent too.
@_exported import EarshotContent
