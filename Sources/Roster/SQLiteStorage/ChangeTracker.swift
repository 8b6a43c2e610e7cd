import CSQLite
import Foundation

/// Reads the change log that the entity triggers and the store's own connection fill (see
/// ``SchemaCatalog``).
///
/// Each trigger appends the key it touched to `_roster_changes`, with the row's values
/// before the write, so the log records every committed write of every connection; the
/// store's own connection appends one entry per transaction and entity instead, whose
/// `batch` lists the keys and rows before (``ChangeBatch``, ``ChangeCapture``). The tracker remembers the last entry it read (`cursor`); after a
/// commit it reads, for each key in the entries past it, the before-image of its first
/// entry (the row at the cursor) and its current row, in the caller's read transaction.
/// A write that changed a value and changed it back leaves the key in the log, but its
/// row before equals its row now, so it reports nothing.
final class ChangeTracker {
    private let reader: Connection
    /// The last log entry read.
    private(set) var cursor: Int64
    private var lastDataVersion: Int64
    /// The newest `pruned_through` read from the file.
    private var knownPrunedThrough: Int64 = 0
    private var rowStatements: [String: Statement] = [:]
    /// ``scopedEntryStatement(for:)`` by entity name.
    private var scopedEntryStatements: [String: Statement] = [:]
    /// ``entryStatement()``, with the log's columns it reads.
    private var compiledEntryStatement: (statement: Statement, columns: ChangeLogColumns)?
    private var lookupStatements: [String: Statement] = [:]
    private var batches: Statement?
    /// ``isBatch(_:)``'s.
    private var batchCheckStatement: Statement?
    private let maxStatement: Statement
    private let prunedStatement: Statement

    /// How long to keep logged rows behind the newest when pruning, so that other
    /// processes reading the same file, and resume tokens, can still read them. A
    /// trigger's entry is one row; a batch holds one per write of its transaction.
    var retention = ChangeLogRetention.default
    private var retainedEntries: Int64 { Int64(min(max(retention.minimumEntries, 1), Int.max / 4)) }
    /// When this process read the log up to an entry, newest last, one a minute at most:
    /// written to `_roster_log_marks` when pruning, which then knows each entry's age.
    private var pendingMarks: [(seq: Int64, at: Int64)] = []
    /// When the newest pending mark's minute began.
    private var markSlotStart: Int64 = 0
    /// After pruning was held back by age: the unpruned rows to wait for before trying again.
    private var nextAttemptAtRows: Int64 = 0
    /// The rows each delivery read since the last prune, oldest first, with the last log
    /// entry it read: pruning keeps the newest deliveries that hold ``retainedEntries`` rows.
    private var unprunedDeliveries: [(through: Int64, rows: Int64)] = []

    /// The rows the store's own transactions left (nil without a preupdate hook): each
    /// key's row now, when only this store wrote what a delivery reads.
    private let ownImages: OwnRowImages?
    /// The gap marks this store wrote when it put an entity's triggers back
    /// (``SchemaCatalog/changeLogGap(of:)``), not yet read past: its own live queries of
    /// the entity re-fetched then, so its deliveries skip them (a resume does not).
    private var ownGapMarks: Set<Int64> = []

    init(reader: Connection, ownImages: OwnRowImages? = nil) throws(DatabaseError) {
        self.reader = reader
        self.ownImages = ownImages
        maxStatement = try reader.prepare("SELECT coalesce(max(seq), 0) FROM _roster_changes")
        prunedStatement = try reader.prepare("SELECT value FROM _roster_meta WHERE name = 'pruned_through'")
        cursor = 0
        lastDataVersion = 0
        // Start after the history already in the file: only changes from now on are news.
        cursor = try Self.integer(from: maxStatement)
        knownPrunedThrough = try Self.integer(from: prunedStatement)
        lastDataVersion = try reader.dataVersion()
    }

    /// Notes the gap marks this store just wrote, for its deliveries to skip.
    func skipOwnGapMarks(_ marks: [Int64]) {
        ownGapMarks.formUnion(marks)
    }

    /// True when some connection has committed to the file since the last check.
    func fileChangedSinceLastCheck() throws(DatabaseError) -> Bool {
        let version = try reader.dataVersion()
        defer { lastDataVersion = version }
        return version != lastDataVersion
    }

    /// Reads the log past the cursor and the touched rows of `entities`, and moves the
    /// cursor past them. Call it inside a read transaction on the reading connection, so
    /// that the log and the rows are one consistent state.
    ///
    /// - Returns: nil when nothing was committed since the last call.
    func collect(entities: [Entity]) throws(DatabaseError) -> CommittedChanges? {
        let newest = try newestEntry()
        if newest < cursor {
            // The numbers went back: another program emptied the log of a file without the
            // removal guard (SchemaCatalog.removalGuard), or replaced the file. What was
            // written since cannot be told apart from what was read: the queries re-fetch.
            cursor = newest
            ownGapMarks = []
            knownPrunedThrough = try Self.integer(from: prunedStatement)
            ownImages?.drop(through: .max)
            return CommittedChanges(rowsByEntity: [:], resync: .logPruned, through: newest)
        }
        guard newest > cursor else { return nil }
        var changes = CommittedChanges(through: newest)
        let prunedThrough = try Self.integer(from: prunedStatement)
        // Entries were removed unread only if the mark moved past the cursor since last
        // seen: a mark beyond every entry (foreign data) costs one resync, not one per commit.
        let isNewlyPruned = prunedThrough > cursor && prunedThrough > knownPrunedThrough
        knownPrunedThrough = prunedThrough
        let window = Self.span(from: cursor, to: newest)
        // Entries, and a batch's rows beyond its one entry: what pruning counts.
        var rows = window
        if isNewlyPruned {
            changes.resync = .logPruned
        } else {
            var batches: [EntityBatches] = []
            for entity in entities {
                batches.append(try readBatches(of: entity, after: cursor, through: newest, skipping: ownGapMarks))
            }
            // When batches are every entry in the window (the usual case: only this store
            // wrote), there are no trigger entries to join: numbers are given in order and
            // a rollback takes back the ones it took.
            let readsTriggerEntries = batches.reduce(0) { Self.sum($0, $1.entries) } < window
            for (index, entity) in entities.enumerated() {
                // Taken out of the list, so that its table of keys is not copied when changed.
                var batch = EntityBatches()
                swap(&batch, &batches[index])
                rows = Self.sum(rows, batch.rowsBeyondEntries)
                // Consumed: a copy left here would make the table shared, and the first change
                // to it would copy all of it (a tenth of a bulk commit at 1M rows).
                let touched = try touchedRows(of: entity, after: cursor, through: newest, batches: consume batch,
                                              readingTriggerEntries: readsTriggerEntries, scope: nil, skipping: ownGapMarks)
                changes.rowsByEntity[entity.name] = touched.rows
                if let resync = touched.resync { changes.resync = changes.resync ?? resync }
            }
        }
        cursor = newest
        if !ownGapMarks.isEmpty { ownGapMarks = ownGapMarks.filter { $0 > newest } }
        ownImages?.drop(through: newest)
        noteDelivery(through: newest, rows: rows)
        noteMark(through: newest)
        return changes
    }

    /// What committed writes did to `entity`'s rows after log entry `position` through the
    /// newest: each touched key's row at `position` and now, in the caller's read
    /// transaction. The cursor stays where it is. A `resync` when the log no longer reaches
    /// back to `position` (pruned past it), or `position` is past its newest entry (the
    /// log is not the one `position` was read from). With a `scope`, only the keys it asks
    /// for (``RowReadScope``).
    func changes(of entity: Entity, since position: Int64, readingRows scope: RowReadScope? = nil) throws(DatabaseError) -> CommittedChanges {
        let newest = try newestEntry()
        var changes = CommittedChanges(through: newest)
        let prunedThrough = try Self.integer(from: prunedStatement)
        guard prunedThrough <= position, position <= newest else {
            changes.resync = .logPruned
            return changes
        }
        guard position < newest else { return changes }
        if let scope {
            // One pass when the range holds no batch of the store's own (a resume after
            // other processes' writes): no batch read first, which would read every entry.
            var rows: [Value: TouchedRow] = [:]
            var noBatches: [Value: BatchedKey] = [:]
            var resync: ResyncReason?
            switch try readTriggerEntries(of: entity, after: position, through: newest, placing: scope.placingAttributes, named: scope.keys,
                                          batchesRead: false, batched: &noBatches, resync: &resync, into: &rows) {
            case .read:
                changes.rowsByEntity[entity.name] = rows
                return changes
            case .tooMany:
                try readTriggerEntries(of: entity, after: position, through: newest, scope: nil, batched: &noBatches, resync: &resync, into: &rows)
                changes.rowsByEntity[entity.name] = rows
                changes.resync = resync
                return changes
            case .batchFound:
                break
            }
        }
        let batches = try readBatches(of: entity, after: position, through: newest)
        let readsTriggerEntries = batches.entries < Self.span(from: position, to: newest)
        let touched = try touchedRows(of: entity, after: position, through: newest, batches: consume batches,
                                      readingTriggerEntries: readsTriggerEntries, scope: scope)
        changes.rowsByEntity[entity.name] = touched.rows
        changes.resync = touched.resync
        return changes
    }

    /// The last entry in the log, as the current read transaction sees it.
    ///
    /// - Throws: a ``DatabaseError`` when it is numbered `Int64.max`, which only another
    ///   program can have written: SQLite then numbers the entries after it at random, and
    ///   a reader would miss them; every delivery reports it until the entry is gone.
    func newestEntry() throws(DatabaseError) -> Int64 {
        let newest = try Self.integer(from: maxStatement)
        guard newest < .max else {
            throw DatabaseError(code: .corrupt, message: "the change log's newest entry (_roster_changes.seq) is \(newest), the largest number SQLite gives: the entries after it are numbered at random and cannot be read in order. Another program wrote it; delete it to go on")
        }
        return newest
    }

    /// Notes the file's data version as the current read transaction sees it, so that
    /// ``fileChangedSinceLastCheck()`` reports only commits made after that state.
    func noteDataVersion() throws(DatabaseError) {
        lastDataVersion = try reader.dataVersion()
    }

    /// What the batches of one entity in a window of the log say.
    private struct EntityBatches {
        /// The first entry of each key, in log order (and the later ones when the first
        /// holds only the values an update changed).
        var keys: [Value: BatchedKey] = [:]
        /// Why the queries must re-fetch instead, when a batch could not be read.
        var resync: ResyncReason?
        /// How many log entries were batches.
        var entries: Int64 = 0
        /// The batches' rows beyond their one entry each: what pruning counts.
        var rowsBeyondEntries: Int64 = 0
        /// Every key's touched row, when the store's own row images lined up with the
        /// batches (``OwnRowImages/StepReader``); `keys` is then empty.
        var rows: [Value: TouchedRow]?
    }

    /// Reads the entity's batches after `first` through `last`: the entries the store's own
    /// connection wrote, a transaction each. When the store's own row images line up with
    /// them and `resolvingInStep`, every key's touched row comes with them (`rows`);
    /// otherwise each key's entries, to be resolved against the rows read from the file.
    ///
    /// - Parameter skipping: log entries to count but not read: the store's own gap marks.
    private func readBatches(
        of entity: Entity, after first: Int64, through last: Int64, resolvingInStep: Bool = true, skipping: Set<Int64> = []
    ) throws(DatabaseError) -> EntityBatches {
        if resolvingInStep, let ownImages,
           let resolved = try batchesResolvedInStep(of: entity, after: first, through: last, images: ownImages, skipping: skipping) {
            return resolved
        }
        var read = EntityBatches()
        let batches = try batchStatement()
        try batches.bind([.string(entity.name), .integer(first), .integer(last)])
        defer { batches.reset() }
        while try batches.step() {
            guard case let .integer(seq) = batches.column(0) else { continue }
            read.entries += 1
            if skipping.contains(seq) { continue }
            read.rowsBeyondEntries -= 1
            do {
                try batches.withBytes(ofColumn: 1) { (bytes) throws(DatabaseError) in
                    // Room for every entry's key, counted first, so that the table is not
                    // rebuilt as it fills (a dozen times for 10,000 keys, each re-hashing
                    // them all: a tenth of a bulk commit of 100,000 rows). At most a
                    // million up front: a blob another program wrote may repeat a key.
                    read.keys.reserveCapacity(read.keys.count + min(try ChangeBatch.entryCount(in: bytes), 1 << 20))
                    try ChangeBatch.forEachEntry(in: bytes, attributes: entity.attributes, keyIndex: entity.keyIndex) { (entry) throws(DatabaseError) in
                        read.rowsBeyondEntries += 1
                        guard let key = entry.key else {
                            // Written while the table's columns changed: its rows cannot be read.
                            read.resync = read.resync ?? .schemaChanged
                            return
                        }
                        // One look-up: a new key gets its first entry, a known one
                        // whose first holds only changed values takes this one too.
                        var isNew = false
                        inPlace(&read.keys[key, default: { isNew = true; return BatchedKey(seq: seq, first: entry) }()]) {
                            if !isNew { $0.noteLater(seq, entry) }
                        }
                    }
                }
            } catch where error.code == .corrupt {
                // Another program wrote something that is not a batch: the rows it
                // stands for are unknown, so the queries re-fetch, and go on after it.
                read.resync = .readFailed
            }
        }
        return read
    }

    /// The entity's batches after `first` through `last` with every key's touched row,
    /// read in step with the store's own row images (``OwnRowImages/StepReader``): a key's
    /// row now is its last entry's image, its row before its first entry's own (an insert:
    /// none; a delete: the row the entry holds; an update: the entry's image with the old
    /// values the entry holds put back). No table of entries, no row read from the file.
    ///
    /// Nil when an entry has no image that lines up with it, or a batch cannot be read:
    /// the caller reads the batches the long way, which says why.
    private func batchesResolvedInStep(
        of entity: Entity, after first: Int64, through last: Int64, images ownImages: OwnRowImages, skipping: Set<Int64>
    ) throws(DatabaseError) -> EntityBatches? {
        let batches = try batchStatement()
        var read = EntityBatches()
        var rows: [Value: TouchedRow] = [:]
        var images = OwnRowImages.StepReader(ownImages, entity: entity)
        var isInStep = true
        try batches.bind([.string(entity.name), .integer(first), .integer(last)])
        defer { batches.reset() }
        while isInStep, try batches.step() {
            guard case let .integer(seq) = batches.column(0) else { return nil }
            read.entries += 1
            // The store's own gap mark: written beside no row image.
            if skipping.contains(seq) { continue }
            read.rowsBeyondEntries -= 1
            images.beginBatch(seq)
            do {
                try batches.withBytes(ofColumn: 1) { (bytes) throws(DatabaseError) in
                    // Room counted first, as in `readBatches`.
                    rows.reserveCapacity(rows.count + min(try ChangeBatch.entryCount(in: bytes), 1 << 20))
                    try ChangeBatch.forEachEntry(in: bytes, attributes: entity.attributes, keyIndex: entity.keyIndex) { (entry) throws(DatabaseError) in
                        guard isInStep else { return }
                        read.rowsBeyondEntries += 1
                        guard let key = entry.key, case let .some(rowNow) = images.rowNow(forKey: key) else {
                            isInStep = false
                            return
                        }
                        // One look-up: a new key's row before comes from this entry.
                        var isNew = false
                        inPlace(&rows[key, default: { isNew = true; return TouchedRow(before: nil, after: nil) }()]) { touched in
                            guard isNew else {
                                touched = TouchedRow(before: touched.before, after: rowNow)
                                return
                            }
                            guard let before = entry.rowBefore(rowAfter: rowNow) else {
                                isInStep = false
                                return
                            }
                            touched = TouchedRow(before: before, after: rowNow)
                        }
                    }
                }
            } catch where error.code == .corrupt {
                return nil
            }
        }
        guard isInStep, images.gaveEveryRow else { return nil }
        // No batch of the entity in the window: nothing to resolve, nothing to read again.
        if !rows.isEmpty { read.rows = rows }
        return read
    }

    /// The entity's touched keys after `first` through `last`, with their rows at the
    /// cursor and now: from its batches, and from the trigger entries when
    /// `readingTriggerEntries`; with a `scope`, less the trigger entries' keys it leaves.
    private func touchedRows(
        of entity: Entity, after first: Int64, through last: Int64, batches: consuming EntityBatches, readingTriggerEntries: Bool,
        scope: RowReadScope?, skipping: Set<Int64> = []
    ) throws(DatabaseError) -> (rows: [Value: TouchedRow], resync: ResyncReason?) {
        if let resolved = batches.rows {
            if !readingTriggerEntries {
                // Only this store wrote: the rows came with its batches.
                ownImages?.noteRowsTaken(resolved.count)
                return (resolved, batches.resync)
            }
            // Other connections wrote too: their entries are merged with the batches'
            // entries, read again the long way.
            batches = try readBatches(of: entity, after: first, through: last, resolvingInStep: false, skipping: skipping)
        }
        var batched = batches.keys
        batches.keys = [:]
        var resync = batches.resync
        var rows: [Value: TouchedRow] = [:]
        let attributes = entity.attributes
        if readingTriggerEntries {
            rows.reserveCapacity(batched.count)
            try readTriggerEntries(of: entity, after: first, through: last, scope: scope, batched: &batched, resync: &resync, into: &rows)
        }
        if !batched.isEmpty {
            rows.reserveCapacity(rows.count + batched.count)
            let lookup = try lookupStatement(for: entity)
            for (key, entry) in batched {
                var after: [Value]?
                try lookup.bind([key])
                defer { lookup.reset() }
                if try lookup.step() {
                    after = attributes.indices.map { lookup.column($0, as: attributes[$0].type) }
                }
                guard case let .known(before) = entry.rowAtCursor(rowAfter: after, before: nil) else {
                    resync = resync ?? .readFailed
                    continue
                }
                rows[key] = TouchedRow(before: before, after: after)
            }
        }
        return (rows, resync)
    }

    /// Reads the trigger entries of the entity in the window, with their rows before and
    /// now in one join, into `rows`; a key whose batch entry came first takes its row before
    /// from the batch (and leaves `batched`). With a `scope`, only the keys it asks for
    /// (``readTriggerEntries(of:after:through:scope:batched:resync:into:)``).
    private func readTriggerEntries(
        of entity: Entity, after first: Int64, through last: Int64, scope: RowReadScope?,
        batched: inout [Value: BatchedKey], resync: inout ResyncReason?, into rows: inout [Value: TouchedRow]
    ) throws(DatabaseError) {
        if let scope {
            // The keys read whatever their entries say: the scope's, and those a batch names.
            var named = scope.keys
            if !batched.isEmpty { named.formUnion(batched.keys) }
            if try readTriggerEntries(of: entity, after: first, through: last, placing: scope.placingAttributes, named: named,
                                      batchesRead: true, batched: &batched, resync: &resync, into: &rows) == .read {
                return
            }
        }
        // Entries the triggers wrote (other connections, or this one while a trigger not the
        // store's own is in the file), with their rows before and now in one join.
        let statement = try rowStatement(for: entity)
        try statement.bind([.integer(first), .integer(last), .string(entity.name)])
        defer { statement.reset() }
        let attributes = entity.attributes
        // Columns: the key, its first entry, whether a before-image exists, the before-image, the row now.
        let afterOffset = 3 + attributes.count
        // At most a key an entry (grown past that, for a range of many other entities').
        rows.reserveCapacity(rows.count + Int(min(max(Self.span(from: first, to: last), 0), 4_096)))
        while try statement.step() {
            let key = statement.column(0, as: entity.key.type)
            let hadRow = statement.column(2) == .integer(1)
            let hasRow = !statement.column(afterOffset + entity.keyIndex).isNull
            let before = hadRow ? Self.row(of: entity, from: statement, startingAt: 3) : nil
            // (The first entry's number is always an integer; were it not, no batch came first.)
            let firstEntry: Int64
            if case let .integer(seq) = statement.column(1) { firstEntry = seq } else { firstEntry = .min }
            rows[key] = TouchedRow(before: Self.rowAtCursor(key, before: before, firstEntry: firstEntry, batched: &batched, resync: &resync),
                                   after: hasRow ? Self.row(of: entity, from: statement, startingAt: afterOffset) : nil)
        }
    }

    /// What a scoped read of the trigger entries did.
    private enum ScopedRead {
        /// It read the keys it kept into `rows`.
        case read
        /// More keys than three entries in four were kept (re-sorting edits): the caller's
        /// join reads them all in SQLite, in the key's order, for less than a look-up each
        /// costs (`roster bench --scenario window`). Nothing was read into `rows`.
        case tooMany
        /// A batch of the store's own came first, and `batchesRead` was false: read the
        /// batches, then again with their keys named. Nothing was read into `rows`.
        case batchFound
    }

    /// The trigger entries of the entity in the window as a ``RowReadScope`` asks: one pass
    /// over the entries that reads each one's key and whether it may have moved its row (an
    /// entry with no mask — an insert, a delete, a replace, an older trigger — or one whose
    /// mask meets the `placing` attributes' bits) and keeps the keys of those that may and
    /// the `named` keys; then, for each key kept, the image of its first entry kept and its
    /// row now, one look-up each. Unless `batchesRead`, it stops at the first batch of the
    /// store's own (``ScopedRead/batchFound``): their keys must be named.
    ///
    /// A key not named whose first entries placed nothing takes the image of its first
    /// entry that may have: the row at `first` but for attributes that place no row, which
    /// a consumer that did not show it never reads (``RowReadScope``). (The named keys are
    /// looked up here, not in SQL: SQLite's `IN` list costs a B-tree search an entry,
    /// twice what a hashed set does.)
    private func readTriggerEntries(
        of entity: Entity, after first: Int64, through last: Int64, placing attributes: Set<Int>, named: Set<Value>, batchesRead: Bool,
        batched: inout [Value: BatchedKey], resync: inout ResyncReason?, into rows: inout [Value: TouchedRow]
    ) throws(DatabaseError) -> ScopedRead {
        let entries = try scopedEntryStatement(for: entity)
        let placing = attributes.reduce(Int64(0)) { $0 | SchemaCatalog.changedMaskBit(ofAttribute: $1) }
        try entries.bind([.integer(first), .integer(last), .string(entity.name)])
        // Each kept key's first entry kept. Column 0 is the rowid, 2 the mask or -1 for a
        // batch (``scopedEntryStatement(for:)``); a key that may not move and that the
        // filter surely lacks is skipped without building its value.
        var read: [Value: Int64] = [:]
        let filter = KeyFilter(named)
        let keyType = entity.key.type
        let most = Self.span(from: first, to: last) / 4 * 3
        var isTooMany = false
        do {
            defer { entries.reset() }
            while try entries.step() {
                let mask = Self.mask(column: 2, of: entries)
                if mask == -1, try isBatch(entries.integer(0)) {
                    if batchesRead { continue }
                    return .batchFound
                }
                // Once too many, the entries after are only looked at for a batch.
                if isTooMany { continue }
                let mayMove = mask.map { $0 == 0 || $0 & placing != 0 } ?? true
                if !mayMove, filter.surelyLacks(column: 1, of: entries, as: keyType) { continue }
                let key = entries.column(1, as: keyType)
                // Neither a trigger's entry nor a batch: another program's, read by none.
                if key.isNull { continue }
                guard mayMove || named.contains(key) else { continue }
                // A key's first entry kept, hashing the key once: a later one is put back.
                if let earlier = read.updateValue(entries.integer(0), forKey: key) {
                    read[key] = earlier
                } else {
                    isTooMany = Int64(read.count) > most
                    if isTooMany && batchesRead { return .tooMany }
                }
            }
        }
        if isTooMany { return .tooMany }
        // (Nothing to look up: a new store's resume prepares neither statement.)
        guard !read.isEmpty else { return .read }
        let image = try entryStatement(imagesOf: entity)
        let lookup = try lookupStatement(for: entity)
        for (key, firstEntry) in read {
            try image.bind([.integer(firstEntry)])
            var before: [Value]?
            do {
                defer { image.reset() }
                if try image.step(), !image.column(Self.entryImagesColumn + entity.keyIndex).isNull {
                    before = Self.row(of: entity, from: image, startingAt: Self.entryImagesColumn)
                }
            }
            try lookup.bind([key])
            var after: [Value]?
            do {
                defer { lookup.reset() }
                if try lookup.step() { after = Self.row(of: entity, from: lookup, startingAt: 0) }
            }
            rows[key] = TouchedRow(before: Self.rowAtCursor(key, before: before, firstEntry: firstEntry, batched: &batched, resync: &resync), after: after)
        }
        return .read
    }

    /// A digest of the log's entry `position`: its entity, key, mask, before-image and its
    /// batch's length — each column that is not null, with its place (an image column added
    /// to the log later is null in older entries, and leaves their digest as it was). Not a
    /// batch's bytes, which a bulk commit makes megabytes long: `length()` reads none of them.
    /// Nil when there is no such entry. See ``StorageBackend/changeLogEntryDigest(at:)``.
    func entryDigest(at position: Int64) throws(DatabaseError) -> String? {
        let statement = try entryStatement().statement
        try statement.bind([.integer(position)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        var digest = FNV1a()
        for column in 0..<statement.columnCount {
            let storage = statement.storageClass(column)
            if storage == SQLITE_NULL { continue }
            digest.combine(UInt64(column) << 8 | UInt64(storage))
            switch storage {
            case SQLITE_INTEGER: digest.combine(UInt64(bitPattern: statement.integer(column)))
            case SQLITE_FLOAT: digest.combine(statement.real(column).bitPattern)
            case SQLITE_TEXT, SQLITE_BLOB:
                statement.withBytes(ofColumn: column) { bytes in
                    digest.combine(UInt64(bytes.count))
                    digest.combine(bytes)
                }
            default: break
            }
        }
        return String(digest.value, radix: 16)
    }

    /// The mask of the entry in column `index`: a whole number (an integer, or a real
    /// another program wrote as one). Nil for no mask (an insert, a delete, a replace, an
    /// older trigger), text, a blob or a fraction: the entry may have moved its row. A mask
    /// may have moved its row when it is 0 or meets the placing attributes' bits.
    static func mask(column index: Int, of statement: Statement) -> Int64? {
        // (One look-up of the column: a scan of the log calls this for each entry.)
        let mask = statement.withValue(ofColumn: index) { value -> Int64? in
            switch sqlite3_value_type(value) {
            case SQLITE_INTEGER: sqlite3_value_int64(value)
            case SQLITE_FLOAT: Int64(exactly: sqlite3_value_double(value))
            default: nil
            }
        }
        return mask ?? nil
    }

    /// Whether log entry `seq` is a batch (its `batch` is not null). Compiled at the first
    /// entry that reads -1 in a scoped pass (``scopedEntryStatement(for:)``): a pass over
    /// other processes' writes alone compiles none.
    private func isBatch(_ seq: Int64) throws(DatabaseError) -> Bool {
        let statement: Statement
        if let compiled = batchCheckStatement {
            statement = compiled
        } else {
            statement = try reader.prepare("SELECT batch IS NOT NULL FROM _roster_changes WHERE seq = ?")
            batchCheckStatement = statement
        }
        try statement.bind([.integer(seq)])
        defer { statement.reset() }
        return try statement.step() && statement.integer(0) != 0
    }

    /// The entity's row in the columns of `statement` from `offset` on.
    private static func row(of entity: Entity, from statement: Statement, startingAt offset: Int) -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(entity.attributes.count)
        for (index, attribute) in entity.attributes.enumerated() {
            values.append(statement.column(offset + index, as: attribute.type))
        }
        return values
    }

    /// A key's row at the cursor, from its first trigger entry's image `before`, unless a
    /// batch entry came first: then the trigger's row before is as the batch's writes left
    /// it (and the key leaves `batched`).
    private static func rowAtCursor(_ key: Value, before: [Value]?, firstEntry: Int64,
                                    batched: inout [Value: BatchedKey], resync: inout ResyncReason?) -> [Value]? {
        guard let earlier = batched.removeValue(forKey: key), earlier.seq < firstEntry else { return before }
        switch earlier.rowAtCursor(rowAfter: before, before: firstEntry) {
        case let .known(row): return row
        case .unknown:
            resync = resync ?? .readFailed
            return before
        }
    }

    /// Drops compiled statements, after an entity's columns changed.
    func forgetStatements() {
        rowStatements = [:]
        scopedEntryStatements = [:]
        compiledEntryStatement = nil
        lookupStatements = [:]
        batches = nil
    }

    /// The statement that reads the batches in a range of the log (every file this Roster
    /// opens has the column: a read-write store upgrades an older one, a read-only store
    /// refuses it).
    private func batchStatement() throws(DatabaseError) -> Statement {
        if let batches { return batches }
        let statement = try reader.prepare("""
            SELECT seq, batch FROM _roster_changes
            WHERE entity = ? AND seq > ? AND seq <= ? AND batch IS NOT NULL ORDER BY seq
            """)
        batches = statement
        return statement
    }

    /// Where ``entryStatement()``'s image columns start.
    private static let entryImagesColumn = 4

    /// The statement that reads one log entry by its number: its entity, key, mask and
    /// batch's length, then every image column from ``entryImagesColumn`` on.
    /// ``entryDigest(at:)`` reads it whole, a scoped read an entity's images; one statement,
    /// compiled once for both. Compiled again when the log's columns change (another
    /// process's tracking may add image columns).
    private func entryStatement() throws(DatabaseError) -> (statement: Statement, columns: ChangeLogColumns) {
        let columns = try SchemaCatalog.logColumns(on: reader)
        if let compiled = compiledEntryStatement, compiled.columns == columns { return compiled }
        let images = (0..<columns.images).map(SchemaCatalog.imageColumn).joined(separator: ", ")
        let mask = columns.hasChangedMask ? SchemaCatalog.changedMaskColumn : "NULL"
        let statement = try reader.prepare("""
            SELECT entity, key, \(mask), length(batch)\(images.isEmpty ? "" : ", " + images) FROM _roster_changes WHERE seq = ?
            """)
        compiledEntryStatement = (statement, columns)
        return (statement, columns)
    }

    /// ``entryStatement()``, to read an entity's images.
    ///
    /// - Throws: a ``DatabaseError`` when the log has fewer image columns than the entity
    ///   has attributes (another program dropped some): its entries cannot hold its rows.
    private func entryStatement(imagesOf entity: Entity) throws(DatabaseError) -> Statement {
        let (statement, columns) = try entryStatement()
        guard columns.images >= entity.attributes.count else {
            throw DatabaseError(code: .error, message: "the change log (_roster_changes) has \(columns.images) image columns, fewer than the \(entity.attributes.count) attributes of \(entity.name): another program dropped some, and its entries cannot hold a row of \(entity.name)")
        }
        return statement
    }

    private func lookupStatement(for entity: Entity) throws(DatabaseError) -> Statement {
        if let statement = lookupStatements[entity.name] { return statement }
        let key = Identifier.quoted(entity.key.name)
        let columns = entity.attributes.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        let statement = try reader.prepare("SELECT \(columns) FROM \(Identifier.quoted(entity.name)) WHERE \(key) = ?1 AND \(key) = ?1 COLLATE BINARY")
        lookupStatements[entity.name] = statement
        return statement
    }

    private func rowStatement(for entity: Entity) throws(DatabaseError) -> Statement {
        if let statement = rowStatements[entity.name] { return statement }
        let images = entity.attributes.indices.map { "b.\(SchemaCatalog.imageColumn($0))" }.joined(separator: ", ")
        let columns = entity.attributes.map { "t.\(Identifier.quoted($0.name))" }.joined(separator: ", ")
        // A key's first entry after the cursor holds its row at the cursor (none for an
        // insert: an image has its key, which is never null).
        let statement = try reader.prepare("""
            SELECT c.key, c.first, b.\(SchemaCatalog.imageColumn(entity.keyIndex)) IS NOT NULL, \(images), \(columns)
            FROM (SELECT key, min(seq) AS first FROM _roster_changes WHERE seq > ? AND seq <= ? AND entity = ? AND key IS NOT NULL GROUP BY key) AS c
            LEFT JOIN _roster_changes AS b ON b.seq = c.first
            LEFT JOIN \(Identifier.quoted(entity.name)) AS t ON t.\(Identifier.quoted(entity.key.name)) = c.key AND t.\(Identifier.quoted(entity.key.name)) = c.key COLLATE BINARY
            """)
        rowStatements[entity.name] = statement
        return statement
    }

    /// The entries of an entity in a range of the log, in order, each with its number, its
    /// key and its mask (``mask(column:of:)``), or -1 for a batch: a mask of -1 (which a
    /// trigger never writes, but another program may) is then checked for a batch
    /// (``isBatch(_:)``). Entries with neither a key nor a batch, which no reader reads,
    /// come too; the caller skips them. A file that a read-only store reads may predate the
    /// mask: every entry then has none, so every row is read.
    private func scopedEntryStatement(for entity: Entity) throws(DatabaseError) -> Statement {
        if let statement = scopedEntryStatements[entity.name] { return statement }
        let mask = try SchemaCatalog.logColumns(on: reader).hasChangedMask ? SchemaCatalog.changedMaskColumn : "NULL"
        // The mask is judged in Swift (``mask(column:of:)``), which costs less than SQLite's
        // arithmetic on it; so is a null key. Batches come too, to be seen, in the mask's
        // column: a column of their own and a filter on null keys cost a pass over 1,000
        // entries 10 % more.
        let statement = try reader.prepare("""
            SELECT seq, key, CASE WHEN batch IS NULL THEN \(mask) ELSE -1 END
            FROM _roster_changes WHERE seq > ?1 AND seq <= ?2 AND entity = ?3 ORDER BY seq
            """)
        scopedEntryStatements[entity.name] = statement
        return statement
    }

    /// Removes log entries that every reader in this process has read, keeping the newest
    /// ``retainedEntries`` for readers in other processes; a reader that falls further
    /// behind re-fetches instead (``CommittedChanges/needsResync``).
    ///
    /// Before-images go with their entries, whose rows hold them. The newest entry stays
    /// whatever its age: see ``SchemaCatalog``.
    func pruneIfNeeded(using writer: Connection) throws(DatabaseError) {
        guard let countLimit = pruningLimit() else { return }
        try writer.execute("BEGIN IMMEDIATE")
        do {
            // Marks first: they say how old the entries are, for this prune and later ones.
            let insertMark = try writer.prepare("INSERT OR REPLACE INTO _roster_log_marks(seq, at) VALUES (?, ?)")
            for mark in pendingMarks {
                try insertMark.bind([.integer(mark.seq), .integer(mark.at)])
                try insertMark.step()
                insertMark.reset()
            }
            pendingMarks.removeAll()
            // The newest entry already logged `minimumAge` ago: entries up to it are old enough.
            var ageLimit = Int64.max
            // Rounded up: an entry is never taken for older than it is.
            let age = retention.minimumAge.components
            let ageSeconds = Self.sum(age.seconds, age.attoseconds > 0 ? 1 : 0)
            if ageSeconds > 0 {
                let oldEnough = try writer.prepare("SELECT coalesce(max(seq), 0) FROM _roster_log_marks WHERE at <= ?")
                // Now rounded down, marks' times up: a cut never falls later than it should.
                try oldEnough.bind([.integer(Self.sum(Int64(Date().timeIntervalSince1970.rounded(.down)), -ageSeconds))])
                ageLimit = 0
                if try oldEnough.step(), case let .integer(seq) = oldEnough.column(0) { ageLimit = seq }
            }
            let limit = min(countLimit, ageLimit)
            guard limit > knownPrunedThrough else {
                // Held back by age: try again after another `minimumEntries` rows.
                try writer.execute("COMMIT")
                nextAttemptAtRows = Self.sum(unprunedDeliveries.reduce(0) { Self.sum($0, $1.rows) }, retainedEntries)
                return
            }
            // The mark first: the log's removal guard (SchemaCatalog.removalGuard) then
            // leaves these deletions alone.
            let mark = try writer.prepare("UPDATE _roster_meta SET value = max(value, ?) WHERE name = 'pruned_through'")
            try mark.bind([.integer(limit)])
            try mark.step()
            // Never the newest entry: the log numbers entries by row id, which would give
            // its number out again once the table is empty.
            let delete = try writer.prepare("DELETE FROM _roster_changes WHERE seq <= ? AND seq < (SELECT max(seq) FROM _roster_changes)")
            try delete.bind([.integer(limit)])
            try delete.step()
            // Marks older than the newest one at or before the cut say nothing more.
            let dropMarks = try writer.prepare("DELETE FROM _roster_log_marks WHERE seq < (SELECT max(seq) FROM _roster_log_marks WHERE seq <= ?)")
            try dropMarks.bind([.integer(limit)])
            try dropMarks.step()
            try writer.execute("COMMIT")
            knownPrunedThrough = limit
            nextAttemptAtRows = 0
            unprunedDeliveries.removeAll { $0.through <= limit }
        } catch {
            try? writer.execute("ROLLBACK")
            throw error
        }
    }

    /// Notes that the log reached `last` now: one mark a minute, the minute's last (a mark
    /// says its entries were logged by its time, never earlier than they were).
    private func noteMark(through last: Int64) {
        let now = Self.now()
        if !pendingMarks.isEmpty, now - markSlotStart < 60 {
            pendingMarks[pendingMarks.count - 1] = (last, now)
            return
        }
        markSlotStart = now
        pendingMarks.append((last, now))
        // A store that cannot prune (read-only) thins its marks rather than drop the
        // oldest, which the age rule needs most.
        if pendingMarks.count > 1_440 {
            pendingMarks = pendingMarks.indices.filter { $0.isMultiple(of: 2) || $0 == pendingMarks.count - 1 }.map { pendingMarks[$0] }
        }
    }

    /// Seconds since 1970, rounded up, as the marks of every process on the file count them.
    private static func now() -> Int64 {
        Int64(Date().timeIntervalSince1970.rounded(.up))
    }

    /// Remembers a delivery for pruning. A store that never prunes (read-only) would keep
    /// one for each: past 1,024, the older half is merged into one, which only makes the
    /// cut through them coarser (it keeps more, never less).
    private func noteDelivery(through last: Int64, rows: Int64) {
        unprunedDeliveries.append((last, rows))
        guard unprunedDeliveries.count > 1_024 else { return }
        let half = unprunedDeliveries.count / 2
        let merged = unprunedDeliveries[..<half].reduce((through: Int64.min, rows: Int64(0))) { (max($0.through, $1.through), Self.sum($0.rows, $1.rows)) }
        unprunedDeliveries.replaceSubrange(..<half, with: [merged])
    }

    /// The last entry to remove, once more than twice ``retainedEntries`` rows were
    /// logged since the last prune; nil when it is not yet time.
    ///
    /// Both cuts keep at least ``retainedEntries`` rows, and the later one is taken: the
    /// newest ``retainedEntries`` entries (each holds a row or more), and the newest
    /// deliveries that hold that many rows (a batch entry holds a whole transaction's).
    private func pruningLimit() -> Int64? {
        let rows = unprunedDeliveries.reduce(0) { Self.sum($0, $1.rows) }
        guard rows >= nextAttemptAtRows else { return nil }
        let twice = Self.sum(retainedEntries, retainedEntries)
        guard rows > twice || Self.span(from: knownPrunedThrough, to: cursor) > twice else { return nil }
        var limit = Self.sum(cursor, -retainedEntries)
        var kept: Int64 = 0
        for index in unprunedDeliveries.indices.reversed() {
            kept = Self.sum(kept, unprunedDeliveries[index].rows)
            guard kept >= retainedEntries else { continue }
            if index > 0 { limit = max(limit, unprunedDeliveries[index - 1].through) }
            break
        }
        return limit > knownPrunedThrough ? limit : nil
    }

    /// `to - from`, held at Int64's bounds: the numbers come from the file, where another
    /// program may have written any.
    private static func span(from start: Int64, to end: Int64) -> Int64 {
        sum(end, start == .min ? .max : -start)
    }

    /// `a + b`, held at Int64's bounds.
    private static func sum(_ a: Int64, _ b: Int64) -> Int64 {
        let (result, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : result
    }

    private static func integer(from statement: Statement) throws(DatabaseError) -> Int64 {
        try statement.bind([])
        defer { statement.reset() }
        guard try statement.step(), case let .integer(value) = statement.column(0) else { return 0 }
        return value
    }
}

/// Runs `body` on `value` in place: with `dictionary[key, default: …]`, one look-up finds
/// or inserts a key and changes its value (the default runs first, when it is new).
private func inPlace<T>(_ value: inout T, _ body: (inout T) -> Void) {
    body(&value)
}
