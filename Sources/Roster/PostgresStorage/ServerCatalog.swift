#if PostgreSQL
/// The store's own tables in a PostgreSQL schema: which entities exist, and the change log
/// that every committed write fills, whoever makes it (Docs/ScaleOut.md).
///
/// All of it lives in one schema (the connection's `current_schema()`, usually set by the
/// URL's `options=-csearch_path=…`), and every function names its tables with that schema,
/// so that a client with another search path (`psql`, a script) is logged the same.
///
/// - `_roster_entities(name, definition)`: one row per entity (``EntityDefinition``).
/// - `_roster_meta(name, value)`: `store_id`; `schema_version`, bumped by each change of
///   an entity's table or log, which clients' schema checks compare; `pruned_through`, the
///   last commit number whose log rows are gone.
/// - `_roster_commits(xid, seq, at)`: one row per transaction that changed a tracked
///   entity, numbered **in commit order** at commit time (see ``stampFunction``).
/// - `_roster_log_<Entity>(_roster_xid, _roster_ord, _roster_existed, <columns>)`: for each
///   row a statement changed, its key and its values before (`_roster_existed` false for a
///   row that did not exist), written by the entity's statement triggers from their
///   transition tables: one `INSERT … SELECT` per statement, not one per row.
///
/// Another client may delete or truncate the commits or a log (``removalGuard(_:)``): the
/// commits whose rows it removed then count as pruned, so that a reader that had not read
/// them re-fetches rather than missing them in silence.
enum ServerCatalog {
    /// The version of the tables and triggers this Roster writes.
    static let logFormat = 1
    /// Entity names are at most this long: PostgreSQL cuts identifiers at 63 bytes, and the
    /// log's names add 12.
    static let maximumEntityNameLength = 51

    /// The schema's names, quoted, for SQL that must not depend on the search path.
    struct Names {
        /// The schema, as PostgreSQL spells it (case kept).
        let schema: String

        /// A table or function of the schema, quoted and qualified.
        func qualified(_ name: String) -> String { "\(Self.quoted(schema)).\(Identifier.quoted(name))" }

        /// A name of the server's as a quoted identifier, its own quotes doubled.
        static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        var commits: String { qualified("_roster_commits") }
        var meta: String { qualified("_roster_meta") }
        var entities: String { qualified("_roster_entities") }
        var sequence: String { qualified("_roster_commit_seq") }
        func table(_ entity: String) -> String { qualified(entity) }
        func log(_ entity: String) -> String { qualified("_roster_log_\(entity)") }
        /// The channel that commits notify: one per schema, `roster.<schema>`, or
        /// `roster.<hash>` when that would pass PostgreSQL's 63-byte limit on channel names.
        var channel: String {
            let name = "roster.\(schema)"
            return name.utf8.count <= 63 ? name : "roster.\(String(Self.hash(schema), radix: 16))"
        }
        /// The advisory lock that orders commit numbers: two 32-bit keys, Roster's and the schema's.
        var commitLock: String { "\(Int32(bitPattern: 0x526F_7374)), \(Int32(bitPattern: UInt32(truncatingIfNeeded: Self.hash(schema))))" }
        /// The advisory lock that orders the store's own schema changes (installing, defining,
        /// migrating, tracking): not the commit lock, which a committing writer takes while it
        /// may hold row locks a schema change waits for.
        var schemaLock: String { "\(Int32(bitPattern: 0x526F_7364)), \(Int32(bitPattern: UInt32(truncatingIfNeeded: Self.hash(schema))))" }

        /// FNV-1a of the schema's name: a stable number to lock by.
        private static func hash(_ text: String) -> UInt64 {
            var hash = FNV1a()
            hash.combine(contentsOf: text.utf8)
            return hash.value
        }
    }

    /// Creates the store's tables in the schema unless they are there, under a lock, so
    /// that clients opening the same schema at once create them once.
    static func install(_ names: Names, on connection: ServerConnection) throws(ServerError) {
        if try isInstalled(names, on: connection), try hasRemovalGuard(names, on: connection) { return }
        try connection.execute("BEGIN")
        do throws(ServerError) {
            _ = try connection.query("SELECT pg_advisory_xact_lock(\(names.schemaLock))")
            if try !isInstalled(names, on: connection) {
                try connection.execute(installation(names))
            } else if try !hasRemovalGuard(names, on: connection) {
                try connection.execute(removalGuard(names))
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Whether the commits table has the removal guard's triggers (``removalGuard(_:)``).
    private static func hasRemovalGuard(_ names: Names, on connection: ServerConnection) throws(ServerError) -> Bool {
        let rows = try connection.query("""
            SELECT count(*) = 2 FROM pg_trigger WHERE tgrelid = to_regclass($1) AND tgname IN ('_roster_gd', '_roster_gt')
            """, [.string(names.commits)])
        return rows.text(0, 0) == "t"
    }

    private static func isInstalled(_ names: Names, on connection: ServerConnection) throws(ServerError) -> Bool {
        let rows = try connection.query("SELECT to_regclass($1) IS NOT NULL", [.string(names.meta)])
        return rows.text(0, 0) == "t"
    }

    /// The store's tables, and the function that numbers commits.
    ///
    /// **Commit order.** A transaction's log rows carry its transaction id (`xid8`). The
    /// first statement that logs a row adds the transaction to `_roster_commits`; a
    /// deferred constraint trigger on that row runs as the transaction commits, takes a
    /// transaction-level advisory lock, and gives it the next number. The lock is held
    /// until the commit is visible to everyone, so a transaction can take number *n* + 1
    /// only after the one with *n* is visible: the numbers are in commit order, and a
    /// reader that saw *n* + 1 sees every number below it. A reader thus never skips a
    /// transaction that committed late (the hazard of sequence numbers taken during the
    /// transaction: A takes 10, B takes 11 and commits first, a reader past 11 misses A).
    /// The price is that committing writers queue for the lock, from their number to their
    /// commit record (Docs/ScaleOut.md).
    private static func installation(_ names: Names) -> String {
        """
        CREATE TABLE \(names.entities)(name text PRIMARY KEY, definition text NOT NULL);
        CREATE TABLE \(names.meta)(name text PRIMARY KEY, value text);
        INSERT INTO \(names.meta)(name, value) VALUES ('pruned_through', '0'), ('schema_version', '1'),
            ('log_format', '\(logFormat)'), ('store_id', md5(random()::text || clock_timestamp()::text));
        CREATE SEQUENCE \(names.sequence);
        CREATE TABLE \(names.commits)(xid xid8 PRIMARY KEY, seq bigint UNIQUE, at timestamptz NOT NULL DEFAULT now());
        CREATE FUNCTION \(names.qualified("_roster_stamp"))() RETURNS trigger LANGUAGE plpgsql AS $roster$
        DECLARE number bigint;
        BEGIN
            PERFORM pg_advisory_xact_lock(\(names.commitLock));
            number := nextval(\(ServerText.literal(names.sequence)));
            UPDATE \(names.commits) SET seq = number WHERE xid = NEW.xid;
            PERFORM pg_notify(\(ServerText.literal(names.channel)), number::text);
            RETURN NULL;
        END
        $roster$;
        CREATE CONSTRAINT TRIGGER _roster_stamp AFTER INSERT ON \(names.commits)
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION \(names.qualified("_roster_stamp"))();
        \(removalGuard(names))
        """
    }

    // MARK: Entities

    /// The entities the schema records.
    static func loadEntities(_ names: Names, on connection: ServerConnection) throws(StoreError) -> [String: Entity] {
        let rows: ServerRows
        do { rows = try connection.query("SELECT name, definition FROM \(names.entities)") } catch { throw .server(error) }
        var entities: [String: Entity] = [:]
        for row in 0..<rows.count {
            guard let name = rows.text(row, 0), let definition = rows.text(row, 1) else {
                throw .schemaMismatch(entity: "?", reason: "_roster_entities holds a row with a null name or definition")
            }
            entities[name] = try EntityDefinition.parse(name: name, definition: definition)
        }
        return entities
    }

    /// The entity as the schema records it now, or nil.
    static func recordedEntity(named name: String, _ names: Names, on connection: ServerConnection) throws(StoreError) -> Entity? {
        let rows: ServerRows
        do { rows = try connection.query("SELECT definition FROM \(names.entities) WHERE name = $1", [.string(name)]) } catch { throw .server(error) }
        guard rows.count > 0, let definition = rows.text(0, 0) else { return nil }
        return try EntityDefinition.parse(name: name, definition: definition)
    }

    /// The SQL that creates an entity's table and records it (inside a transaction).
    static func creation(of entity: Entity, _ names: Names) -> String {
        let columns = entity.attributes.enumerated().map { index, attribute in
            "\(Identifier.quoted(attribute.name)) \(ServerText.columnType(attribute.type))\(index == entity.keyIndex ? " NOT NULL PRIMARY KEY" : "")"
        }
        let indexes = entity.attributes.filter { $0.relationship != nil }.map { attribute in
            "CREATE INDEX ON \(names.table(entity.name))(\(Identifier.quoted(attribute.name)));\n"
        }.joined()
        return """
            CREATE TABLE \(names.table(entity.name))(\(columns.joined(separator: ", ")));
            \(indexes)INSERT INTO \(names.entities)(name, definition) VALUES (\(ServerText.literal(entity.name)), \(ServerText.literal(EntityDefinition.describe(entity))));
            \(bumpSchemaVersion(names))
            """
    }

    /// The SQL that adds `migrated`'s new attributes to the table (and to its log, when it
    /// has one) and records the new definition.
    static func migration(from existing: Entity, to migrated: Entity, hasLog: Bool, _ names: Names) -> String {
        var sql = ""
        for attribute in migrated.attributes.dropFirst(existing.attributes.count) {
            let column = "\(Identifier.quoted(attribute.name)) \(ServerText.columnType(attribute.type))"
            sql += "ALTER TABLE \(names.table(migrated.name)) ADD COLUMN \(column);\n"
            if hasLog { sql += "ALTER TABLE \(names.log(migrated.name)) ADD COLUMN \(column);\n" }
            if attribute.relationship != nil { sql += "CREATE INDEX ON \(names.table(migrated.name))(\(Identifier.quoted(attribute.name)));\n" }
        }
        // The triggers copy every column: written again for the new ones.
        if hasLog { sql += triggers(for: migrated, names) }
        sql += "UPDATE \(names.entities) SET definition = \(ServerText.literal(EntityDefinition.describe(migrated))) WHERE name = \(ServerText.literal(migrated.name));\n"
        return sql + bumpSchemaVersion(names)
    }

    /// Counts a change of the schema, which every client's schema check notices.
    static func bumpSchemaVersion(_ names: Names) -> String {
        "UPDATE \(names.meta) SET value = (value::bigint + 1)::text WHERE name = 'schema_version';\n"
    }

    // MARK: Change log

    /// The SQL that creates an entity's log table and its triggers, or puts back whichever
    /// of them another client dropped (the triggers are always written again).
    static func changeLog(for entity: Entity, _ names: Names) -> String {
        let columns = entity.attributes.map { "\(Identifier.quoted($0.name)) \(ServerText.columnType($0.type))" }
        return """
            CREATE TABLE IF NOT EXISTS \(names.log(entity.name))(_roster_xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
                _roster_ord bigserial, _roster_existed boolean NOT NULL, \(columns.joined(separator: ", ")));
            CREATE INDEX IF NOT EXISTS \(Identifier.quoted("_roster_lx_\(entity.name)")) ON \(names.log(entity.name))(_roster_xid);
            \(triggers(for: entity, names))\(guardTriggers(on: names.log(entity.name), names))\(bumpSchemaVersion(names))
            """
    }

    /// The function that makes a removal of log rows or commits by anyone but the pruner a
    /// resync, and its triggers on the commits table (those of an entity's log are made with
    /// it): `pruned_through` rises to the newest commit whose rows went — the newest of all
    /// after a `TRUNCATE`, and one past it when a removed row belongs to a transaction not
    /// numbered yet (it will be numbered after every commit now visible). A reader whose
    /// cursor is below it re-fetches; a reader that had read those commits misses nothing.
    /// The pruner's own deletions never raise it past the cut it writes anyway. Made with
    /// the store's tables, or by ``install(_:on:)`` in a schema an older Roster made.
    private static func removalGuard(_ names: Names) -> String {
        let raise = """
            UPDATE \(names.meta) SET value = lost::text WHERE name = 'pruned_through'
                    AND CASE WHEN value ~ '^-?[0-9]{1,18}$' THEN value::bigint < lost ELSE true END;
            """
        return """
            CREATE OR REPLACE FUNCTION \(names.qualified("_roster_removed"))() RETURNS trigger LANGUAGE plpgsql AS $roster$
            DECLARE newest bigint; lost bigint; unnumbered boolean := false;
            BEGIN
                SELECT coalesce(max(seq), 0) INTO newest FROM \(names.commits);
                IF TG_OP = 'TRUNCATE' THEN
                    lost := newest;
                    IF EXISTS (SELECT 1 FROM \(names.commits) WHERE xid = pg_current_xact_id()) THEN lost := newest + 1; END IF;
                ELSIF TG_TABLE_NAME = '_roster_commits' THEN
                    SELECT max(seq), bool_or(seq IS NULL) INTO lost, unnumbered FROM _roster_gone;
                ELSE
                    SELECT max(c.seq), bool_or(c.seq IS NULL) INTO lost, unnumbered
                        FROM (SELECT DISTINCT _roster_xid FROM _roster_gone) g LEFT JOIN \(names.commits) c ON c.xid = g._roster_xid;
                END IF;
                IF unnumbered THEN lost := greatest(lost, newest) + 1; END IF;
                IF lost IS NOT NULL THEN
                    \(raise)
                END IF;
                RETURN NULL;
            END
            $roster$;
            \(guardTriggers(on: names.commits, names))
            """
    }

    /// The removal guard's triggers on a table of the log (``removalGuard(_:)``).
    private static func guardTriggers(on table: String, _ names: Names) -> String {
        let execute = "EXECUTE FUNCTION \(names.qualified("_roster_removed"))()"
        return """
            DROP TRIGGER IF EXISTS _roster_gd ON \(table);
            CREATE TRIGGER _roster_gd AFTER DELETE ON \(table) REFERENCING OLD TABLE AS _roster_gone FOR EACH STATEMENT \(execute);
            DROP TRIGGER IF EXISTS _roster_gt ON \(table);
            CREATE TRIGGER _roster_gt BEFORE TRUNCATE ON \(table) FOR EACH STATEMENT \(execute);

            """
    }

    /// The entity's four triggers and their functions (replacing any), each statement-level:
    /// inserts log the new keys; updates log the rows before of those whose values changed
    /// (a write of the same values logs nothing) and the keys that appeared; deletes and
    /// `TRUNCATE` log the rows before. A statement that logs nothing leaves no commit.
    static func triggers(for entity: Entity, _ names: Names) -> String {
        let table = names.table(entity.name)
        let log = names.log(entity.name)
        let key = Identifier.quoted(entity.key.name)
        let columns = entity.attributes.map { Identifier.quoted($0.name) }
        let list = columns.joined(separator: ", ")
        let old = columns.map { "o.\($0)" }.joined(separator: ", ")
        let new = columns.map { "n.\($0)" }.joined(separator: ", ")
        let stamp = "INSERT INTO \(names.commits)(xid) VALUES (pg_current_xact_id()) ON CONFLICT (xid) DO NOTHING;"
        func function(_ suffix: String, _ body: String) -> String {
            """
            CREATE OR REPLACE FUNCTION \(names.qualified("_roster_\(suffix)_\(entity.name)"))() RETURNS trigger LANGUAGE plpgsql AS $roster$
            DECLARE logged boolean := false;
            BEGIN
            \(body)
                IF logged THEN \(stamp) END IF;
                RETURN NULL;
            END
            $roster$;

            """
        }
        func trigger(_ name: String, _ when: String, _ suffix: String) -> String {
            "DROP TRIGGER IF EXISTS \(name) ON \(table);\nCREATE TRIGGER \(name) \(when) ON \(table) \(suffix);\n"
        }
        let execute = { (suffix: String) in "EXECUTE FUNCTION \(names.qualified("_roster_\(suffix)_\(entity.name)"))()" }
        return function("li", """
                INSERT INTO \(log)(_roster_existed, \(key)) SELECT false, n.\(key) FROM _roster_new n;
                logged := FOUND;
            """)
            + function("lu", """
                INSERT INTO \(log)(_roster_existed, \(list)) SELECT true, \(old) FROM _roster_old o
                    LEFT JOIN _roster_new n ON n.\(key) = o.\(key) WHERE n.\(key) IS NULL OR (\(old)) IS DISTINCT FROM (\(new));
                logged := FOUND;
                INSERT INTO \(log)(_roster_existed, \(key)) SELECT false, n.\(key) FROM _roster_new n
                    WHERE NOT EXISTS (SELECT 1 FROM _roster_old o WHERE o.\(key) = n.\(key));
                logged := logged OR FOUND;
            """)
            + function("ld", """
                INSERT INTO \(log)(_roster_existed, \(list)) SELECT true, \(old) FROM _roster_old o;
                logged := FOUND;
            """)
            + function("lt", """
                INSERT INTO \(log)(_roster_existed, \(list)) SELECT true, \(old) FROM \(table) o;
                logged := FOUND;
            """)
            + trigger("_roster_li", "AFTER INSERT", "REFERENCING NEW TABLE AS _roster_new FOR EACH STATEMENT \(execute("li"))")
            + trigger("_roster_lu", "AFTER UPDATE", "REFERENCING OLD TABLE AS _roster_old NEW TABLE AS _roster_new FOR EACH STATEMENT \(execute("lu"))")
            + trigger("_roster_ld", "AFTER DELETE", "REFERENCING OLD TABLE AS _roster_old FOR EACH STATEMENT \(execute("ld"))")
            + trigger("_roster_lt", "BEFORE TRUNCATE", "FOR EACH STATEMENT \(execute("lt"))")
    }

    /// A gap mark in the entity's log, for a log put back while its table was there without
    /// its triggers (a migration tool recreated it, or a client dropped them): writes
    /// between went unlogged. A log row with no key, numbered as a commit of its own
    /// transaction; every reader of the log past it — a client that finds the triggers
    /// back, a resume from an older token — re-fetches rather than trusting the rows.
    static func changeLogGap(of entity: Entity, _ names: Names) -> String {
        """
        INSERT INTO \(names.log(entity.name))(_roster_existed) VALUES (true);
        INSERT INTO \(names.commits)(xid) VALUES (pg_current_xact_id()) ON CONFLICT (xid) DO NOTHING;

        """
    }

    /// Whether the entity's log table exists (its triggers may not).
    static func hasLogTable(of entity: Entity, _ names: Names, on connection: ServerConnection) throws(ServerError) -> Bool {
        try connection.query("SELECT to_regclass($1) IS NOT NULL", [.string(names.log(entity.name))]).text(0, 0) == "t"
    }

    /// Whether the entity has its log table and its four triggers, enabled, and the commits
    /// table its stamping trigger, enabled: otherwise writes would go unlogged. And whether
    /// the log has the removal guard's triggers (``removalGuard(_:)``), which a log made by
    /// an older Roster lacks: tracking then writes them.
    static func hasChangeLog(of entity: Entity, _ names: Names, on connection: ServerConnection) throws(ServerError) -> Bool {
        let rows = try connection.query("""
            SELECT to_regclass($1) IS NOT NULL AND (SELECT count(*) FROM pg_trigger
                WHERE tgrelid = to_regclass($2) AND tgname IN ('_roster_li', '_roster_lu', '_roster_ld', '_roster_lt') AND tgenabled <> 'D') = 4
                AND (SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass($3) AND tgname = '_roster_stamp' AND tgenabled <> 'D') = 1
                AND (SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass($1) AND tgname IN ('_roster_gd', '_roster_gt') AND tgenabled <> 'D') = 2
            """, [.string(names.log(entity.name)), .string(names.table(entity.name)), .string(names.commits)])
        return rows.text(0, 0) == "t"
    }
}
#endif
