/// The rows the store's own committed transactions left, by the log entries that logged
/// them: what a delivery of those entries takes as each key's row now, instead of reading
/// back from the file the rows its own connection just wrote.
///
/// ``ChangeCapture`` fills it: the preupdate hook notes each written row as the write
/// leaves it (C: `put_image`), and after `COMMIT` succeeds the images of the transaction
/// are kept under the numbers of its log entries, one image for each batch entry, in the
/// same order. ``ChangeTracker`` reads them in step with the batches (``StepReader``) when
/// every batch it delivers for an entity has images (only this store wrote them); another
/// process's batch in the window, images that do not line up, or another connection's
/// trigger entries in the window, and it reads the rows from the file as before.
/// The images are never trusted beyond what they can know:
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

    /// Notes that a delivery took `count` keys' rows now from images.
    func noteRowsTaken(_ count: Int) { rowsTaken += count }

    /// Reads the images of the batches in a window in step with them.
    ///
    /// The hook writes one image for each batch entry, in the same order (a whole row for
    /// a write that leaves one, an insert entry for a delete): the *n*-th image of a
    /// transaction is the row now of its *n*-th batch entry. So a reader of the batches
    /// takes each entry's row now as it goes, with no look-up by key. Any entry without
    /// its image — a batch of another program, a transaction that kept none, images that
    /// do not line up — puts the reader out of step for good, and the rows it gave must
    /// then be read instead (``isInStep``).
    struct StepReader {
        private let images: OwnRowImages
        private let entity: Entity
        /// The images of the transaction at hand, and how many of its batches are to come.
        private var current: Images?
        private var cursor: ChangeBatch.EntryCursor?
        private var batchesLeft = 0
        /// False once an entry had no image that lines up with it.
        private(set) var isInStep = true

        init(_ images: OwnRowImages, entity: Entity) {
            self.images = images
            self.entity = entity
        }

        /// Starts the batch of log entry `entry` (batches come in log order).
        mutating func beginBatch(_ entry: Int64) {
            guard isInStep else { return }
            if let current, batchesLeft > 0 {
                // The transaction's next batch: its images go on where they stopped.
                if current.entries[current.entries.count - batchesLeft] != entry { isInStep = false }
                batchesLeft -= 1
                return
            }
            // A new transaction: the one before must have used all its images.
            guard cursor?.isAtEnd ?? true, let image = images.byEntry[entry], image.entity == entity.name,
                  image.entries.first == entry, let opened = try? ChangeBatch.EntryCursor(bytes: image.bytes) else {
                isInStep = false
                return
            }
            (current, cursor, batchesLeft) = (image, opened, image.entries.count - 1)
        }

        /// The row now of the batch entry at hand, whose key is `key`: a row, or nil inside
        /// for no row; nil once out of step.
        mutating func rowNow(forKey key: Value) -> [Value]?? {
            guard isInStep, var reader = cursor, !reader.isAtEnd else {
                isInStep = false
                return nil
            }
            defer { cursor = reader }
            switch try? reader.next(attributes: entity.attributes, keyIndex: entity.keyIndex) {
            case let .before(imageKey, row)? where imageKey == key:
                return .some(row)
            case let .inserted(imageKey)? where imageKey == key:
                return .some(nil)
            default:
                isInStep = false
                return nil
            }
        }

        /// Whether every batch entry read was given its row now: the last transaction's
        /// images were used up, and the reader never left step.
        var gaveEveryRow: Bool { isInStep && batchesLeft == 0 && (cursor?.isAtEnd ?? true) }
    }
}
