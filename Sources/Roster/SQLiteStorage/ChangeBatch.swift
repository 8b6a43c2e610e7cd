/// The entries of one `_roster_changes.batch` value: what one transaction of the store's own
/// connection changed in one entity, as ``ChangeCapture`` (C: `RosterCapture.c`) wrote it.
///
/// The format, version 1, little-endian:
///
/// ```
/// batch   := version:u8 (= 1)  columns:varint  entry*
/// entry   := tag:u8  key:value  [value × columns, when tag = 1]  [changes, when tag = 3]
///            tag 0: the key was inserted (no row had it before this write)
///            tag 1: the key's row before this write follows, in the entity's attribute order
///            tag 2: the row before could not be read (the table's columns changed inside
///                   the transaction); the key is null and readers re-fetch
///            tag 3: an update that kept the key; changes := count:varint, then count ×
///                   (index:varint value): the attribute index and old value of each value
///                   it changed
/// value   := 0 (null) | 1 zigzag-varint (integer) | 2 u64 (IEEE double) | 3 varint bytes (text)
///            | 4 varint bytes (blob)
/// ```
///
/// Entries are in write order and not merged: a key written twice has two entries. The
/// first one holds its row at the start of the transaction, as the first log entry of a key
/// does for trigger-written entries — whole for a delete (tag 1), or, for an update (tag 3),
/// as the values it changed: the rest of the row is as the update left it, which the reader
/// rebuilds backwards from the row's next whole image, or from the row now
/// (``ChangeTracker``). An update logs a tenth to a half of what a whole row would take,
/// and each logged byte is written twice (the log, then the checkpoint). Values are read as ``Statement/column(_:as:)`` reads
/// the same value from a column of that attribute's type.
///
/// A batch comes from the file, so another program may have written anything there: every
/// read is bounds-checked and a malformed batch is a ``DatabaseError`` (`SQLITE_CORRUPT`),
/// never a trap.
struct ChangeBatch {
    /// One entry.
    enum Entry {
        /// The key had no row before this write.
        case inserted(key: Value)
        /// The key's row before this write.
        case before(key: Value, row: [Value])
        /// An update that kept the key: the index and old value of each value it changed;
        /// the other values were as the update left them.
        case changed(key: Value, values: ChangedValues)
        /// The row before could not be read: the reader must re-fetch.
        case unknown

        /// The entry's key; nil for ``unknown``.
        var key: Value? {
            switch self {
            case let .inserted(key), let .before(key, _), let .changed(key, _): key
            case .unknown: nil
            }
        }

        /// The key's row before this entry's write, from `rowAfter`, its row as the write
        /// left it: none for an insert, the row the entry holds for a delete, `rowAfter`
        /// with the old values put back for an update. Nil when the entry cannot tell: an
        /// update of a row that `rowAfter` says is gone, or ``unknown``.
        func rowBefore(rowAfter: [Value]?) -> [Value]?? {
            switch self {
            case .inserted:
                return .some(nil)
            case let .before(_, row):
                return .some(row)
            case let .changed(_, values):
                guard let rowAfter else { return nil }
                // A new array filled value by value: the copy-on-write copy would copy each
                // value through the type's generic witness (3 % of a bulk commit).
                var row = rowAfter.map { $0 }
                for (index, value) in values where index < row.count { row[index] = value }
                return .some(row)
            case .unknown:
                return nil
            }
        }
    }

    /// Reads every entry of `bytes` in order.
    ///
    /// - Parameters:
    ///   - attributes: the entity's attributes. A batch written with fewer columns was
    ///     written before attributes were added (a definition only ever appends them): its
    ///     rows are read as those attributes' values, the added ones null, as the table gave
    ///     existing rows. One written with more columns yields ``Entry/unknown`` for each of
    ///     its rows before.
    ///   - keyIndex: the key's position among `attributes`.
    /// - Throws: ``DatabaseError`` (`SQLITE_CORRUPT`) for bytes that are not a batch.
    static func forEachEntry(
        in bytes: UnsafeRawBufferPointer, attributes: [Attribute], keyIndex: Int,
        _ body: (Entry) throws(DatabaseError) -> Void
    ) throws(DatabaseError) {
        var reader = ByteReader(bytes: bytes)
        let columns = try reader.header()
        while !reader.isAtEnd {
            try body(try entry(from: &reader, columns: columns, attributes: attributes, keyIndex: keyIndex))
        }
    }

    /// The entry at `reader`, in a batch of rows of `columns` values.
    fileprivate static func entry(
        from reader: inout ByteReader, columns: UInt64, attributes: [Attribute], keyIndex: Int
    ) throws(DatabaseError) -> Entry {
        let tag = try reader.byte()
        let key = try reader.value(as: attributes[keyIndex].type)
        // Written before attributes were added: the same attributes, in the same order, first.
        let fits = columns <= UInt64(attributes.count)
        switch tag {
        case 0:
            return .inserted(key: key)
        case 1:
            guard fits else {
                try reader.skipValues(columns)
                return .unknown
            }
            var row: [Value] = []
            row.reserveCapacity(attributes.count)
            for attribute in attributes.prefix(Int(columns)) { row.append(try reader.value(as: attribute.type)) }
            while row.count < attributes.count { row.append(.null) }
            return .before(key: key, row: row)
        case 2:
            return .unknown
        case 3:
            let count = try reader.varint()
            guard fits else {
                // Indexes of another row layout cannot be mapped: skip them, unread.
                try reader.skipChanges(count)
                return .unknown
            }
            guard count <= columns else { throw ByteReader.corrupt("an update changes more values than a row has") }
            var values = ChangedValues()
            for _ in 0..<count {
                let index = try reader.varint()
                guard index < columns else { throw ByteReader.corrupt("a changed value's index is past the row's end") }
                values.append(Int(index), try reader.value(as: attributes[Int(index)].type))
            }
            return .changed(key: key, values: values)
        default:
            throw ByteReader.corrupt("unknown entry tag \(tag)")
        }
    }
}

extension ChangeBatch {
    /// Reads the entries of one batch a call at a time, where
    /// ``forEachEntry(in:attributes:keyIndex:_:)`` calls back: for reading it in step with
    /// another (the store's row images with its batches).
    struct EntryCursor {
        private let bytes: [UInt8]
        private let columns: UInt64
        private var offset: Int

        /// A cursor before the first entry of `bytes`.
        ///
        /// - Throws: ``DatabaseError`` (`SQLITE_CORRUPT`) when `bytes` do not start as a batch.
        init(bytes: [UInt8]) throws(DatabaseError) {
            let header = bytes.withUnsafeBytes { buffer in
                var reader = ByteReader(bytes: buffer)
                return Result { () throws(DatabaseError) in (try reader.header(), reader.offset) }
            }
            (columns, offset) = try header.get()
            self.bytes = bytes
        }

        /// Whether every entry was read.
        var isAtEnd: Bool { offset >= bytes.count }

        /// The next entry (call only before the end).
        ///
        /// - Throws: ``DatabaseError`` (`SQLITE_CORRUPT`) for bytes that are not an entry.
        mutating func next(attributes: [Attribute], keyIndex: Int) throws(DatabaseError) -> Entry {
            let (columns, start) = (self.columns, offset)
            let read = bytes.withUnsafeBytes { buffer in
                var reader = ByteReader(bytes: buffer, offset: start)
                return Result { () throws(DatabaseError) in
                    (try ChangeBatch.entry(from: &reader, columns: columns, attributes: attributes, keyIndex: keyIndex), reader.offset)
                }
            }
            let (entry, end) = try read.get()
            offset = end
            return entry
        }
    }
}

extension ChangeBatch {
    /// How many entries `bytes` holds, found by skipping over them (nothing is decoded):
    /// what a reader reserves room for before reading them.
    ///
    /// - Throws: ``DatabaseError`` (`SQLITE_CORRUPT`) for bytes that are not a batch.
    static func entryCount(in bytes: UnsafeRawBufferPointer) throws(DatabaseError) -> Int {
        var reader = ByteReader(bytes: bytes)
        let columns = try reader.header()
        var count = 0
        while !reader.isAtEnd {
            let tag = try reader.byte()
            try reader.skipValue()
            switch tag {
            case 0, 2:
                break
            case 1:
                try reader.skipValues(columns)
            case 3:
                try reader.skipChanges(try reader.varint())
            default:
                throw ByteReader.corrupt("unknown entry tag \(tag)")
            }
            count += 1
        }
        return count
    }
}

/// Reads the values of a ``ChangeBatch``, checking every length against the bytes left.
private struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    var isAtEnd: Bool { offset >= bytes.count }

    static func corrupt(_ reason: String) -> DatabaseError {
        DatabaseError(code: .corrupt, message: "a change batch in _roster_changes is malformed: \(reason)")
    }

    /// Reads a batch's header (its version, 1) and returns how many values its rows have.
    mutating func header() throws(DatabaseError) -> UInt64 {
        guard try byte() == 1 else { throw Self.corrupt("unknown batch version") }
        return try varint()
    }

    mutating func byte() throws(DatabaseError) -> UInt8 {
        guard offset < bytes.count else { throw Self.corrupt("it ends inside an entry") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() throws(DatabaseError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64 else { throw Self.corrupt("a number is longer than 64 bits") }
            value |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { return value }
            shift += 7
        }
    }

    mutating func fixed64() throws(DatabaseError) -> UInt64 {
        guard bytes.count - offset >= 8 else { throw Self.corrupt("it ends inside a number") }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        offset += 8
        return value
    }

    mutating func payload() throws(DatabaseError) -> UnsafeBufferPointer<UInt8> {
        let count = try varint()
        guard count <= UInt64(bytes.count - offset) else { throw Self.corrupt("a value is longer than the batch") }
        let start = bytes.baseAddress.map { $0.advanced(by: offset).assumingMemoryBound(to: UInt8.self) }
        offset += Int(count)
        return UnsafeBufferPointer(start: start, count: Int(count))
    }

    mutating func skipValue() throws(DatabaseError) {
        switch try byte() {
        case 0: break
        case 1: _ = try varint()
        case 2: _ = try fixed64()
        case 3, 4: _ = try payload()
        case let kind: throw Self.corrupt("unknown value kind \(kind)")
        }
    }

    /// Skips `count` values (a row before, tag 1).
    mutating func skipValues(_ count: UInt64) throws(DatabaseError) {
        for _ in 0..<count { try skipValue() }
    }

    /// Skips `count` changed values, each an index and a value (an update, tag 3).
    mutating func skipChanges(_ count: UInt64) throws(DatabaseError) {
        for _ in 0..<count {
            _ = try varint()
            try skipValue()
        }
    }

    /// The next value, converted as ``Statement/column(_:as:)`` converts a column's.
    mutating func value(as type: AttributeType) throws(DatabaseError) -> Value {
        switch try byte() {
        case 0:
            return .null
        case 1:
            let zigzag = try varint()
            let number = Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1)))
            switch type {
            case .bool: return number == 0 || number == 1 ? .bool(number == 1) : .integer(number)
            case .double: return .double(Double(number))
            default: return .integer(number)
            }
        case 2:
            return .double(Double(bitPattern: try fixed64()))
        case 3, 4:
            return Value.text(utf8: try payload())
        case let kind:
            throw Self.corrupt("unknown value kind \(kind)")
        }
    }
}
