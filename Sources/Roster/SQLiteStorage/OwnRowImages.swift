/// The rows the store's own committed transactions left, by the log entries that logged
/// them: what a delivery of those entries takes as each key's row now, instead of reading
/// back from the file the rows its own connection just wrote.
///
/// ``ChangeCapture`` fills it: the preupdate hook notes each written row as the write
/// leaves it (C: `put_image`), and after `COMMIT` succeeds the images of the transaction
/// are kept under the numbers of its log entries. ``ChangeTracker`` takes them when every
/// entry it delivers for an entity has images (only this store wrote); any other entry in
/// the window — another connection's trigger entry, another process's batch — and it reads
/// the rows as before. The images are never trusted beyond what they can know:
///
/// - a transaction whose images may not be the rows it committed keeps none: one that
///   rolled back to a savepoint — as every failed write of the store does, API or raw SQL
///   (``ChangeCapture/invalidateImages()``) — or whose hook dropped them (out of memory, too
///   large, the table's columns changed); a schema change in raw SQL makes the hook log an
///   unknown row, which drops them too;
/// - log numbers are reused only after a rollback, and a rollback keeps no images;
/// - what a delivery has read is dropped, and so is everything past ``byteLimit``.
///
/// The rows are in the format of a ``ChangeBatch`` whose whole-row entries (tag 1) hold the
/// row *now* and whose insert entries (tag 0) say the key has no row now.
final class OwnRowImages {
    /// One transaction's images of one entity.
    final class Images {
        let entity: String
        /// The log entries the transaction wrote for the entity.
        let entries: [Int64]
        let bytes: [UInt8]

        init(entity: String, entries: [Int64], bytes: [UInt8]) {
            self.entity = entity
            self.entries = entries
            self.bytes = bytes
        }
    }

    /// At most this many bytes are kept: a store nobody watches keeps none for long.
    static let byteLimit = 64 << 20
    /// What one transaction's images cost beyond their rows (the object, its arrays, the
    /// slots by entry), counted against ``byteLimit``.
    static let overhead = 256

    private var byEntry: [Int64: Images] = [:]
    /// Oldest first, for dropping.
    private var order: [Images] = []
    private var bytes = 0

    /// How many transactions' images of an entity are kept.
    var count: Int { order.count }
    /// How many keys' rows now deliveries took from images (each key once a delivery), and
    /// how many transactions' images of an entity were kept (for tests and profiles).
    private(set) var rowsTaken = 0
    private(set) var imagesKept = 0

    /// Keeps a committed transaction's images.
    func add(_ images: [Images]) {
        imagesKept += images.count
        for image in images {
            for entry in image.entries { byEntry[entry] = image }
            order.append(image)
            bytes += image.bytes.count + Self.overhead
        }
        guard bytes > Self.byteLimit else { return }
        var dropped = 0
        while bytes > Self.byteLimit, dropped < order.count {
            drop(order[dropped])
            dropped += 1
        }
        order.removeFirst(dropped)
    }

    /// Forgets the images of every entry up to `entry` (delivered).
    func drop(through entry: Int64) {
        guard !order.isEmpty else { return }
        var kept: [Images] = []
        for image in order {
            if image.entries.allSatisfy({ $0 <= entry }) { drop(image) } else { kept.append(image) }
        }
        order = kept
    }

    private func drop(_ image: Images) {
        for entry in image.entries where byEntry[entry] === image { byEntry[entry] = nil }
        bytes -= image.bytes.count + Self.overhead
    }

    /// Sets, in the table of keys the batches of the entity's `entries` named, each key's
    /// row now (nil inside: no row) after those entries — which must be every entry of the
    /// entity in the window delivered.
    ///
    /// - Returns: false, setting nothing, when one of the entries has no images of
    ///   `entity` or they cannot be read. A key the images do not name keeps its row now
    ///   unset.
    func fillRowsNow(of entity: Entity, entries: [Int64], into keys: inout [Value: BatchedKey]) -> Bool {
        var images: [Images] = []
        for entry in entries {
            guard let image = byEntry[entry], image.entity == entity.name else { return false }
            if images.last !== image { images.append(image) }
        }
        var isReadable = true
        // Where each image's row goes, found with one look-up a row; set once all are read.
        var found: [(index: Dictionary<Value, BatchedKey>.Index, row: [Value]?)] = []
        // In log order, so that a key's last write is its row now.
        for image in images where isReadable {
            image.bytes.withUnsafeBytes { buffer in
                do {
                    try ChangeBatch.forEachEntry(in: buffer, attributes: entity.attributes, keyIndex: entity.keyIndex) { (entry) throws(DatabaseError) in
                        let (key, row): (Value, [Value]?)
                        switch entry {
                        case let .before(entryKey, entryRow): (key, row) = (entryKey, entryRow)
                        case let .inserted(entryKey): (key, row) = (entryKey, nil)
                        case .changed, .unknown:
                            isReadable = false
                            return
                        }
                        if let index = keys.index(forKey: key) { found.append((index, row)) }
                    }
                } catch {
                    isReadable = false
                }
            }
        }
        guard isReadable else { return false }
        for (index, row) in found {
            if keys.values[index].rowNow == nil { rowsTaken += 1 }
            keys.values[index].rowNow = .some(row)
        }
        return true
    }
}
