/// The change-log triggers of the current format that the file holds, by name, as of one
/// schema version.
///
/// Triggers can only be found in `sqlite_schema`, which has no index: looking an entity's
/// up there costs a pass over the whole schema, so looking up each entity's as it is first
/// watched would cost the square of their number. A backend reads the names once, keeps
/// them up to date through its own schema changes (``SQLiteStorage/noteOwnSchemaChange(_:addingChangeLogsOf:)``),
/// and reads them again only when the schema version says that another connection
/// changed the schema.
struct ChangeLogNames {
    /// The triggers' names, lowercased, as SQLite compares names.
    var names: Set<String>
    /// The schema version the names hold for.
    var version: Int64

    /// Reads the names in one pass over `sqlite_schema`: those of the triggers a store on
    /// `connection` takes for change logs (``SchemaCatalog/triggerMark(on:)``).
    ///
    /// - Parameter version: the schema version read before, in the same transaction or
    ///   earlier (never later: names read before a change must not pass for the state
    ///   after it).
    static func read(on connection: Connection, version: Int64) throws(DatabaseError) -> ChangeLogNames {
        let statement = try connection.prepare("SELECT lower(name) FROM sqlite_schema WHERE type = 'trigger' AND name LIKE '\\_roster\\_%' ESCAPE '\\' AND instr(sql, ?) > 0")
        try statement.bind([.string(SchemaCatalog.triggerMark(on: connection))])
        defer { statement.reset() }
        var names: Set<String> = []
        while try statement.step() {
            if case let .string(name) = statement.column(0) { names.insert(name) }
        }
        return ChangeLogNames(names: names, version: version)
    }

    /// Whether the entity's change-log triggers are among the names
    /// (``SchemaCatalog/hasChangeLogTriggers(of:among:)``). Its change log is whole when
    /// `_roster_changes` also has an image column for each of its attributes.
    func hasTriggers(of entity: Entity) -> Bool {
        SchemaCatalog.hasChangeLogTriggers(of: entity, among: names)
    }
}
