/// Path entry points of ``CAFReader``: the file is read into memory and parsed from there, so a
/// path and the same bytes in memory give the same results and the same errors.
extension CAFReader {
    /// Decodes the CAF file at `path`.
    ///
    /// The file is read whole only when its size fits what `options` allows (see
    /// ``ClipDecoder/Options``); its decoded size is checked before decoding.
    public static func decode(path: String, options: ClipDecoder.Options = .init()) throws(EarshotError) -> PCMAudio {
        try decode(try FileBytes.read(path: path, limit: options.maxEncodedBytes, setting: options.limitName),
                   name: path, options: options)
    }

    /// Parses the structure of the CAF file at `path`.
    public static func parse(path: String) throws(EarshotError) -> CAFFile {
        try parse(try FileBytes.read(path: path), name: path)
    }
}
