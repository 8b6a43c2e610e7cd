/// The writing side of the change log: the three or four triggers that fill
/// `_roster_changes` for an entity. ``ChangeTracker`` reads what they write, and
/// ``SQLiteStorage/checkSchema(of:observed:)`` puts them back when another process dropped
/// them; the three live in this folder, SQLite's backend, so that both sides of the log
/// are read together.
extension SchemaCatalog {
    /// The change logs of `entities` — each entity's triggers, replacing those of an
    /// older format, and the image columns of `_roster_changes` the widest of them needs
    /// that the table lacks — as SQL to run in the same write transaction as this read.
    static func changeLogs(for entities: [Entity], on connection: Connection) throws(DatabaseError) -> String {
        let columns = try logColumns(on: connection)
        let needed = entities.map(\.attributes.count).max() ?? 0
        var sql = columns.hasChangedMask ? "" : "ALTER TABLE _roster_changes ADD COLUMN \(changedMaskColumn);\n"
        sql += (columns.images..<max(columns.images, needed)).map { "ALTER TABLE _roster_changes ADD COLUMN \(imageColumn($0));\n" }.joined()
        for entity in entities { sql += changeLog(for: entity) }
        return sql
    }

    /// The column of `_roster_changes` in which the update trigger notes which attributes
    /// the update changed: bit *i* for the attribute number *i* (in the entity's order),
    /// bit 62 for every attribute from number 62 on. Null in every other entry (an insert,
    /// a delete, a replace, the store's own batches, a trigger of an older Roster): any
    /// attribute may have changed. A resume reads the rows of the keys whose updates
    /// changed nothing that places a row in its results (``RowReadScope``) no more.
    static let changedMaskColumn = "changed"

    /// The bit of ``changedMaskColumn`` that stands for the attribute number `index`.
    static func changedMaskBit(ofAttribute index: Int) -> Int64 { 1 << Int64(min(index, 62)) }

    /// What `_roster_changes` has of the columns the change logs write: how many image
    /// columns (`old0` …), and whether it has ``changedMaskColumn``.
    ///
    /// Read by `PRAGMA table_info` (``tableInfo(of:on:)``), which reads the file's schema as
    /// it is (a statement only prepared would be compiled against the schema the connection
    /// last loaded, which another connection may have changed since), and answers for a
    /// file without the table too; once for each schema version on a connection
    /// (``Connection/schemaDerived(_:)``).
    static func logColumns(on connection: Connection) throws(DatabaseError) -> ChangeLogColumns {
        try connection.schemaDerived { () throws(DatabaseError) in try readLogColumns(on: connection) }
    }

    private static func readLogColumns(on connection: Connection) throws(DatabaseError) -> ChangeLogColumns {
        let columns = try tableInfo(of: "_roster_changes", on: connection)
        defer { columns.reset() }
        var images = 0
        var hasChangedMask = false
        while try columns.step() {
            guard case let .string(text) = columns.column(1) else { continue }
            // As `GLOB 'old[0-9]*'` and `= 'changed'` match them.
            let name = Array(text.utf8)
            if name.elementsEqual(changedMaskColumn.utf8) { hasChangedMask = true }
            if name.count > 3, name.starts(with: "old".utf8), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(name[3]) { images += 1 }
        }
        return ChangeLogColumns(images: images, hasChangedMask: hasChangedMask)
    }

    /// The triggers that fill the change log of `entity` (replacing those of an older
    /// format or layout), as SQL to run inside a transaction; `_roster_changes` must have
    /// an image column for each attribute, which is why callers go through
    /// ``changeLogs(for:on:)``. Their kinds are ``changeLogTriggerKinds(of:)``:
    ///
    /// - upsert (BEFORE INSERT), for a key that is not a row id: logs the key of any
    ///   insert with the row it replaces, if the key exists (`INSERT OR REPLACE` deletes that row
    ///   without firing the delete trigger), with no before-image otherwise;
    /// - or, for a row-id key, which SQLite may pick only once the row goes in: insert
    ///   (AFTER INSERT) logs the key with no before-image, and replace (BEFORE INSERT, only
    ///   when the key exists) logs the key with the row it replaces;
    /// - update, only when some value changes: logs the old key with the old row, and a
    ///   new key (when the key itself changed) with no before-image;
    /// - delete: logs the key with the old row.
    ///
    /// An insert that then fails under `OR IGNORE` or `OR FAIL` leaves upsert's
    /// entry behind: its key's row is read and found unchanged, as for any no-op write.
    ///
    /// Each writes with `INSERT OR IGNORE` into a table without constraints: nothing in it
    /// can fail, so it adds no statement journal of its own to the writer's statement. That
    /// text is also how ``hasChangeLog(of:on:)`` and the schema check tell these triggers
    /// from an older format's (``currentTriggerMark``).
    private static func changeLog(for entity: Entity) -> String {
        let table = Identifier.quoted(entity.name)
        let key = Identifier.quoted(entity.key.name)
        let names = entity.attributes.map { Identifier.quoted($0.name) }
        let images = entity.attributes.indices.map(imageColumn).joined(separator: ", ")
        // Entity names are identifiers (letters, digits, '_'), so they are safe inside a string literal.
        let log = "\(currentTriggerMark)) VALUES ('\(entity.name)',"
        let logWithImage = "\(currentTriggerMark), \(images))"
        let old = names.map { "OLD.\($0)" }.joined(separator: ", ")
        // By bytes, whatever collation another process gave the column: `'a'` to `'A'` is a
        // change (the contract orders text by bytes).
        let comparisons = names.map { "OLD.\($0) IS NOT NEW.\($0) COLLATE BINARY" }
        let changed = comparisons.joined(separator: " OR ")
        let mask = comparisons.enumerated().map { index, comparison in
            "((\(comparison)) * \(changedMaskBit(ofAttribute: index)))"
        }.joined(separator: " | ")
        func trigger(_ kind: String) -> String { Identifier.quoted("_roster_\(entity.name)_\(kind)") }
        var sql = ""
        for kind in allTriggerKinds { sql += "DROP TRIGGER IF EXISTS \(trigger(kind));\n" }
        if keyIsRowID(entity) {
            sql += """
                CREATE TRIGGER \(trigger("insert")) AFTER INSERT ON \(table) BEGIN \(log) NEW.\(key), NULL); END;
                CREATE TRIGGER \(trigger("replace")) BEFORE INSERT ON \(table) WHEN EXISTS (SELECT 1 FROM \(table) WHERE \(key) = NEW.\(key)) BEGIN
                    \(logWithImage) SELECT '\(entity.name)', NEW.\(key), NULL, \(names.joined(separator: ", ")) FROM \(table) WHERE \(key) = NEW.\(key);
                END;

                """
        } else {
            // One row whatever the key: the replaced row's values, or nulls when there is none.
            let replaced = names.map { "_roster_old.\($0)" }.joined(separator: ", ")
            sql += """
                CREATE TRIGGER \(trigger("upsert")) BEFORE INSERT ON \(table) BEGIN
                    \(logWithImage) SELECT '\(entity.name)', NEW.\(key), NULL, \(replaced) FROM (SELECT 1) LEFT JOIN \(table) AS _roster_old ON _roster_old.\(key) = NEW.\(key);
                END;

                """
        }
        sql += """
            CREATE TRIGGER \(trigger("update")) AFTER UPDATE ON \(table) WHEN \(changed) BEGIN
                \(logWithImage) VALUES ('\(entity.name)', OLD.\(key), \(mask), \(old));
                \(currentTriggerMark)) SELECT '\(entity.name)', NEW.\(key), NULL WHERE NEW.\(key) IS NOT OLD.\(key) COLLATE BINARY;
            END;
            CREATE TRIGGER \(trigger("delete")) AFTER DELETE ON \(table) BEGIN \(logWithImage) VALUES ('\(entity.name)', OLD.\(key), NULL, \(old)); END;

            """
        return sql
    }

    /// The log entry that marks a gap in the entity's change log: its table was recreated
    /// without its triggers (a migration tool's copy-and-rename), so writes between went
    /// unlogged. A batch of one entry whose row before is unknown (``ChangeBatch`` tag 2,
    /// a null key, no columns): every reader of the log past it — a live query in another
    /// process, a resume from an older token — re-fetches instead of trusting the entries.
    /// SQL to run in the transaction that puts the triggers back.
    static func changeLogGap(of entity: Entity) -> String {
        // Entity names are identifiers (letters, digits, '_'), so they are safe inside a string literal.
        "INSERT INTO _roster_changes(entity, batch) VALUES ('\(entity.name)', X'01000200');\n"
    }

    /// Whether the entity's key is its table's row id (an integer or a bool key: a column
    /// `INTEGER PRIMARY KEY`), which SQLite picks when an insert gives none — after the
    /// `BEFORE INSERT` triggers ran, which see -1 for it.
    private static func keyIsRowID(_ entity: Entity) -> Bool {
        entity.key.type.columnType == "INTEGER"
    }

    /// Every kind of trigger an entity's change log has had, in either layout. A trigger is
    /// named `_roster_<entity>_<kind>`, and trigger names are the file's, not the table's:
    /// no kind holds an underscore, so that one entity's trigger never has the name of
    /// another's (a kind `insert_or_replace` would make `Post`'s trigger the replace
    /// trigger of an entity named `Post_insert_or`).
    private static let allTriggerKinds = ["insert", "replace", "upsert", "update", "delete"]

    /// The kinds of trigger that make up the entity's change log as this Roster writes it:
    /// one insert trigger for a key that is not a row id, two for one that is (see
    /// ``changeLog(for:)``). Each trigger is one more object that SQLite loads on every
    /// `CREATE` after it, so one less an entity makes defining many a third cheaper
    /// (`roster bench --scenario entities`).
    static func changeLogTriggerKinds(of entity: Entity) -> [String] {
        keyIsRowID(entity) ? ["insert", "replace", "update", "delete"] : ["upsert", "update", "delete"]
    }

    /// Text that every trigger of the current format holds and no older format's does
    /// (they inserted without `OR IGNORE`, or without ``changedMaskColumn``). An older
    /// Roster still open on the file when it was upgraded puts its own triggers back when
    /// it misses its table of before-images; ``hasChangeLog(of:on:)`` and the schema check
    /// then take the entity's change log for missing, and write the current one again.
    /// (A Roster of the same log format that predates the mask finds its own text,
    /// `INSERT OR IGNORE INTO _roster_changes`, in these triggers, and keeps them.)
    static let currentTriggerMark = "INSERT OR IGNORE INTO _roster_changes(entity, key, \(changedMaskColumn)"

    /// Text that every trigger a store reads from holds: those of the current format, and
    /// those of the same log format written before ``changedMaskColumn`` (their entries have
    /// no mask, so every touched row is read). A read-only store, which cannot write the
    /// current ones, takes these for whole change logs.
    static let readableTriggerMark = "INSERT OR IGNORE INTO _roster_changes"

    /// The mark of the triggers a store on `connection` takes for an entity's change log:
    /// ``currentTriggerMark``, or ``readableTriggerMark`` when it cannot write them.
    static func triggerMark(on connection: Connection) -> String {
        connection.isReadOnly ? readableTriggerMark : currentTriggerMark
    }

    /// Whether `_roster_changes` with these columns holds an entity's change log of
    /// `attributeCount` attributes, for a store on `connection`: an image column for each
    /// attribute, and the mask unless the store cannot add it.
    static func logColumnsFit(_ columns: ChangeLogColumns, attributeCount: Int, on connection: Connection) -> Bool {
        columns.images >= attributeCount && (columns.hasChangedMask || connection.isReadOnly)
    }

    /// The names of the triggers this Roster writes for the entity's change log
    /// (``changeLogTriggerKinds(of:)``), lowercased, as SQLite compares names.
    static func changeLogTriggerNames(of entity: Entity) -> [String] {
        changeLogTriggerKinds(of: entity).map { triggerName(entity, $0) }
    }

    /// Every name a trigger of the entity's change log can have, in format 8's layout or
    /// format 7's four triggers, lowercased: the store's own triggers.
    static func changeLogObjectNames(of entity: Entity) -> [String] {
        allTriggerKinds.map { triggerName(entity, $0) }
    }

    /// Whether `names` (lowercased) hold a whole set of the entity's change-log triggers:
    /// format 8's, or — for a key that is not a row id — the four format 7 wrote (an insert
    /// trigger and a replace trigger), which log the same entries: what a read-only store
    /// finds in a format 7 file, or a store finds after a Roster of format 7, open when the
    /// file was upgraded, put its own back.
    static func hasChangeLogTriggers(of entity: Entity, among names: Set<String>) -> Bool {
        guard names.contains(triggerName(entity, "update")), names.contains(triggerName(entity, "delete")) else { return false }
        let apart = names.contains(triggerName(entity, "insert")) && names.contains(triggerName(entity, "replace"))
        return apart || (!keyIsRowID(entity) && names.contains(triggerName(entity, "upsert")))
    }

    private static func triggerName(_ entity: Entity, _ kind: String) -> String {
        "_roster_\(entity.name)_\(kind)".lowercased()
    }

    /// Whether the file holds the entity's whole change log (its triggers of the current
    /// format, and an image column in `_roster_changes` for each attribute), as the
    /// connection sees it.
    ///
    /// Triggers can only be found in `sqlite_schema`, which has no index: this reads the
    /// whole schema table. The store looks change logs up in the names it keeps
    /// (``ChangeLogNames``) instead, and reads them once per schema change by another
    /// connection, not once per entity.
    static func hasChangeLog(of entity: Entity, on connection: Connection) throws(DatabaseError) -> Bool {
        let version = try connection.schemaVersion()
        let names = try ChangeLogNames.read(on: connection, version: version)
        guard names.hasTriggers(of: entity) else { return false }
        return logColumnsFit(try logColumns(on: connection), attributeCount: entity.attributes.count, on: connection)
    }
}

/// What `_roster_changes` has of the columns the change logs write
/// (``SchemaCatalog/logColumns(on:)``).
struct ChangeLogColumns: Equatable {
    /// How many image columns (`old0` …).
    let images: Int
    /// Whether it has ``SchemaCatalog/changedMaskColumn``.
    let hasChangedMask: Bool
}
