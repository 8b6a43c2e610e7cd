/// Writes JSON text as UTF-8 bytes; see ``JSONValue/serialized(_:)`` for the format.
struct JSONWriter {
    let isPretty: Bool
    private(set) var bytes: [UInt8] = []
    private var indentation = 0

    init(isPretty: Bool) {
        self.isPretty = isPretty
    }

    mutating func write(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case let .bool(flag): append(flag ? "true" : "false")
        case let .integer(integer): append(String(integer))
        case let .number(number): append(Self.text(of: number))
        case let .string(string): writeString(string)
        case let .array(elements):
            writeContainer(JSONByte.openBracket, elements, JSONByte.closeBracket) { writer, element in
                writer.write(element)
            }
        case let .object(object):
            writeContainer(JSONByte.openBrace, object, JSONByte.closeBrace) { writer, member in
                writer.writeString(member.key)
                writer.bytes.append(JSONByte.colon)
                if writer.isPretty { writer.bytes.append(JSONByte.space) }
                writer.write(member.value)
            }
        }
    }

    private mutating func writeContainer<Items: Collection>(
        _ open: UInt8, _ items: Items, _ close: UInt8,
        writeItem: (inout JSONWriter, Items.Element) -> Void
    ) {
        bytes.append(open)
        if !items.isEmpty {
            indentation += 1
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(JSONByte.comma) }
                newLine()
                writeItem(&self, item)
            }
            indentation -= 1
            newLine()
        }
        bytes.append(close)
    }

    private mutating func newLine() {
        guard isPretty else { return }
        bytes.append(JSONByte.lineFeed)
        bytes.append(contentsOf: repeatElement(JSONByte.space, count: 2 * indentation))
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func writeString(_ string: String) {
        bytes.append(JSONByte.quote)
        for byte in string.utf8 {
            switch byte {
            case JSONByte.quote, JSONByte.backslash: bytes.append(contentsOf: [JSONByte.backslash, byte])
            case JSONByte.lineFeed: bytes.append(contentsOf: [JSONByte.backslash, JSONByte.n])
            case JSONByte.tab: bytes.append(contentsOf: [JSONByte.backslash, JSONByte.t])
            case JSONByte.carriageReturn: bytes.append(contentsOf: [JSONByte.backslash, JSONByte.r])
            case 0x08: bytes.append(contentsOf: [JSONByte.backslash, JSONByte.b])
            case 0x0C: bytes.append(contentsOf: [JSONByte.backslash, JSONByte.f])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [JSONByte.backslash, JSONByte.u, JSONByte.zero, JSONByte.zero])
                bytes.append(contentsOf: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(JSONByte.quote)
    }

    /// The shortest text that parses back to `number`, always with a fraction or an
    /// exponent so that it parses back as a number and not an integer; `null` when the
    /// number is not finite.
    static func text(of number: Double) -> String {
        guard number.isFinite else { return "null" }
        let text = number.description
        if text.utf8.contains(where: { $0 == JSONByte.dot || $0 == JSONByte.e || $0 == JSONByte.upperE }) {
            return text
        }
        return text + ".0"
    }
}
