import Foundation

/// Reads the head of a token's text — a small JSON object — from its bytes. A resume reads
/// a token each time it starts, and Foundation's JSON reading costs it more than its log
/// reads of a few entries (mostly in building Foundation's objects): this reads what
/// ``ResumeToken/encoded`` writes, and gives nil for anything else, which the caller then
/// hands to Foundation (so any text Foundation reads is read as before).
enum TokenText {
    /// A JSON object whose members are each a string or an array of strings and such
    /// arrays — what a token's head is — as `[String: Any]` holding `String` and `[Any]`;
    /// nil for any other JSON (a number, `true`, a nested object, a repeated member, arrays
    /// nested deeper than ``deepestArray``) or text that is not JSON.
    static func head(_ bytes: [UInt8]) -> [String: Any]? {
        var reader = Reader(bytes: bytes)
        return reader.object()
    }

    /// How deep arrays in a head may nest: a token's are two deep (an anchored window's
    /// key). Deeper ones are left to Foundation.
    static let deepestArray = 4

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func object() -> [String: Any]? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var members: [String: Any] = [:]
            if take(UInt8(ascii: "}")) { return atEnd() ? members : nil }
            repeat {
                guard let name = string(), take(UInt8(ascii: ":")), members[name] == nil, let member = value(depth: 0) else { return nil }
                members[name] = member
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")), atEnd() else { return nil }
            return members
        }

        /// A string, or an array of strings and arrays `depth` arrays deep.
        private mutating func value(depth: Int) -> Any? {
            guard peek() == UInt8(ascii: "[") else { return string() }
            guard depth < TokenText.deepestArray else { return nil }
            offset += 1
            var list: [Any] = []
            if take(UInt8(ascii: "]")) { return list }
            repeat {
                guard let item = value(depth: depth + 1) else { return nil }
                list.append(item)
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]")) ? list : nil
        }

        /// A JSON string: UTF-8 as it stands, and JSON's escapes (a `\u` escape of a
        /// surrogate only as half of a pair).
        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            // Most strings hold no escape: taken as they stand.
            var end = offset
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                defer { offset = end + 1 }
                return String(validating: bytes[offset..<end], as: UTF8.self)
            }
            var text: [UInt8] = []
            while offset < bytes.count {
                let byte = bytes[offset]
                offset += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(validating: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard offset < bytes.count else { return nil }
                    let escaped = bytes[offset]
                    offset += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                    case UInt8(ascii: "b"): text.append(0x08)
                    case UInt8(ascii: "f"): text.append(0x0C)
                    case UInt8(ascii: "n"): text.append(0x0A)
                    case UInt8(ascii: "r"): text.append(0x0D)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let scalar = escapedScalar() else { return nil }
                        text.append(contentsOf: String(Character(scalar)).utf8)
                    default: return nil
                    }
                case 0..<0x20:
                    return nil
                default:
                    text.append(byte)
                }
            }
            return nil
        }

        /// The scalar of a `\u` escape whose `\u` was read: four hex digits, or a
        /// surrogate pair of two escapes.
        private mutating func escapedScalar() -> Unicode.Scalar? {
            guard let first = hexQuad() else { return nil }
            guard (0xD800...0xDBFF).contains(first) else { return Unicode.Scalar(first) }
            // The low half comes next, nothing between (`take` would skip space).
            guard bytes.count - offset >= 2, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else { return nil }
            offset += 2
            guard let second = hexQuad(), (0xDC00...0xDFFF).contains(second) else { return nil }
            return Unicode.Scalar(0x10000 + (first - 0xD800) << 10 + (second - 0xDC00))
        }

        private mutating func hexQuad() -> UInt32? {
            guard bytes.count - offset >= 4 else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = hexDigit(bytes[offset]) else { return nil }
                value = value << 4 | digit
                offset += 1
            }
            return value
        }

        private func hexDigit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A")) + 10
            default: nil
            }
        }

        private mutating func skipSpace() {
            while offset < bytes.count {
                switch bytes[offset] {
                case 0x20, 0x09, 0x0A, 0x0D: offset += 1
                default: return
                }
            }
        }

        private mutating func peek() -> UInt8? {
            skipSpace()
            return offset < bytes.count ? bytes[offset] : nil
        }

        /// Takes `byte` after any space, when it comes next.
        private mutating func take(_ byte: UInt8) -> Bool {
            guard peek() == byte else { return false }
            offset += 1
            return true
        }

        private mutating func atEnd() -> Bool {
            skipSpace()
            return offset == bytes.count
        }
    }
}
