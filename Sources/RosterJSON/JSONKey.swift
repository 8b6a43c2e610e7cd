/// A string key that is equal and hashes by its UTF-8 bytes.
struct JSONKey: Hashable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (lhs: JSONKey, rhs: JSONKey) -> Bool {
        lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combineJSONString(string)
    }
}

extension Hasher {
    /// Feeds the string's UTF-8 bytes, and their count, to the hasher.
    mutating func combineJSONString(_ string: String) {
        var string = string
        string.withUTF8 { bytes in
            combine(bytes.count)
            combine(bytes: UnsafeRawBufferPointer(bytes))
        }
    }
}
