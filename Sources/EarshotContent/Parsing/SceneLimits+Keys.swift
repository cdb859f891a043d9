import CYaml

extension SceneLimits {
    /// The keys of the top-level mapping of YAML `text`, read with libyaml's event parser (no
    /// tree is built; nothing below the top level is looked at): nil when the text does not
    /// parse or its top is not a mapping. For telling a bank from a scene before either is read.
    static func topLevelKeys(_ text: String) -> [String]? {
        var utf8 = Array(text.utf8)
        if utf8.isEmpty { return nil }
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return nil }
        defer { yaml_parser_delete(&parser) }
        return utf8.withUnsafeMutableBufferPointer { buffer -> [String]? in
            guard let base = buffer.baseAddress else { return nil }
            yaml_parser_set_input_string(&parser, base, buffer.count)
            var keys: [String] = []
            var depth = 0, children = 0, sawTop = false
            var event = yaml_event_t()
            while true {
                guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
                defer { yaml_event_delete(&event) }
                switch event.type {
                case YAML_STREAM_END_EVENT, YAML_DOCUMENT_END_EVENT:
                    return sawTop ? keys : nil
                case YAML_MAPPING_START_EVENT:
                    if depth == 0 { sawTop = true } else if depth == 1 { children += 1 }
                    depth += 1
                case YAML_SEQUENCE_START_EVENT:
                    if depth == 0 { return nil }
                    if depth == 1 { children += 1 }
                    depth += 1
                case YAML_MAPPING_END_EVENT, YAML_SEQUENCE_END_EVENT:
                    depth -= 1
                    if depth == 0 { return keys }
                case YAML_SCALAR_EVENT:
                    if depth == 0 { return nil }
                    if depth == 1 {
                        if children % 2 == 0, let v = event.data.scalar.value { keys.append(String(cString: v)) }
                        children += 1
                    }
                case YAML_ALIAS_EVENT:
                    if depth == 0 { return nil }
                    if depth == 1 { children += 1 }
                default:
                    break
                }
            }
        }
    }
}
