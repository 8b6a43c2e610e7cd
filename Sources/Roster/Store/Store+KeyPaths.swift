/// What a commit did to the rows of a live query that reads through key paths
/// (`feed.title`): its own touched rows, and the rows whose related objects changed, each
/// with the key-path values it had before the commit and has now.
extension Store {
    /// The touched rows of `entity` as a live query bound to it sees them: for an entity
    /// extended with key paths (``KeyPathColumns``), every object whose stored values or
    /// key-path values the commits changed, with its whole extended row before and now;
    /// for any other, the committed rows as they are. Reads in the current read
    /// transaction; costs what the affected objects cost, not the table.
    ///
    /// An object's key-path values before come from the change log's before-images of the
    /// related objects the commits touched, and from the related objects as they are for
    /// those they did not (so unchanged then).
    ///
    /// - Throws: ``StoreError`` when a read fails.
    func touchedRows(of entity: Entity, in changes: CommittedChanges) throws(StoreError) -> [Value: TouchedRow] {
        guard let keyPaths = entity.keyPaths else { return changes.rows(of: entity) }
        let own = TouchedRow.shown(changes.rowsByEntity[entity.name] ?? [:], attributeCount: keyPaths.storedCount)
        var affected = Set(own.lazy.filter(\.value.isChanged).map(\.key))
        // Objects whose related objects changed an attribute the paths read, or came or went.
        for (index, join) in keyPaths.joins.enumerated() {
            guard let rows = changes.rowsByEntity[join.destination.name], !rows.isEmpty else { continue }
            let read = keyPaths.readAttributes(ofJoin: index)
            let keys = rows.compactMap { key, row -> Value? in
                guard let before = row.before, let after = row.after else { return row.isChanged ? key : nil }
                return read.contains { $0 < before.count && $0 < after.count && before[$0] != after[$0] } ? key : nil
            }
            guard !keys.isEmpty else { continue }
            affected.formUnion(try storage.keys(of: entity, whereColumn: join.referenceColumn, in: keys))
        }
        guard !affected.isEmpty else { return [:] }
        let now = try storage.committedRows(of: entity, keys: Array(affected))
        var resolver = BeforeResolver(store: self, entity: entity, keyPaths: keyPaths, changes: changes)
        var touched: [Value: TouchedRow] = [:]
        touched.reserveCapacity(affected.count)
        for key in affected {
            let after = now[key]
            // The stored row before: the log's, or, untouched, the row as it is.
            let storedBefore: [Value]? = if let row = own[key] { row.before } else { after.map { Array($0.prefix(keyPaths.storedCount)) } }
            let before = try storedBefore.map { stored throws(StoreError) in try resolver.extend(stored, now: after) }
            if before != after { touched[key] = TouchedRow(before: before, after: after) }
        }
        return touched
    }

    /// What committed writes did since `position` to the entity and to every entity its
    /// key paths reach, in one ``CommittedChanges`` (see
    /// ``StorageBackend/changes(of:since:)``); `resync` set when the log no longer reaches
    /// back for one of them.
    func changes(observedBy entity: Entity, since position: Int64) throws(StoreError) -> CommittedChanges {
        var merged = CommittedChanges()
        for name in entity.observedNames {
            let changes = try storage.changes(of: self.entity(named: name), since: position)
            merged.rowsByEntity[name] = changes.rowsByEntity[name]
            merged.resync = merged.resync ?? changes.resync
            merged.through = max(merged.through, changes.through)
        }
        return merged
    }
}

/// Works out an object's key-path values before a commit from its stored row then.
private struct BeforeResolver {
    let store: Store
    let entity: Entity
    let keyPaths: KeyPathColumns
    let changes: CommittedChanges
    /// Related objects read as they are now, by entity and key (nil: none has the key).
    private var current: [String: [Value: [Value]?]] = [:]

    init(store: Store, entity: Entity, keyPaths: KeyPathColumns, changes: CommittedChanges) {
        self.store = store
        self.entity = entity
        self.keyPaths = keyPaths
        self.changes = changes
    }

    /// `stored` (the object's stored row before) with its key-path values before; `now`,
    /// the object's extended row now, serves every join whose key and destination did not
    /// change.
    mutating func extend(_ stored: [Value], now: [Value]?) throws(StoreError) -> [Value] {
        var row = stored
        row.reserveCapacity(entity.attributes.count)
        row += repeatElement(Value.null, count: keyPaths.columns.count)
        for (index, join) in keyPaths.joins.enumerated() {
            guard let reference = entity.index(of: join.referenceColumn) else { continue }
            let key = row[reference]
            let columns = keyPaths.columns.indices.filter { keyPaths.columns[$0].join == index }
            guard !key.isNull else { continue }
            let destination = join.destination
            let touched = changes.rowsByEntity[destination.name]?[key]
            if touched == nil, let now, now[reference] == key {
                // Same reference, and the related object untouched: its values are as now.
                for column in columns { row[keyPaths.storedCount + column] = now[keyPaths.storedCount + column] }
                continue
            }
            let related: [Value]?
            if let touched {
                related = touched.before
            } else {
                related = try currentRow(of: destination, key: key)
            }
            guard let related else { continue }
            for column in columns {
                if let attribute = destination.index(of: keyPaths.columns[column].attribute), attribute < related.count {
                    row[keyPaths.storedCount + column] = related[attribute]
                }
            }
        }
        return row
    }

    private mutating func currentRow(of destination: Entity, key: Value) throws(StoreError) -> [Value]? {
        if let known = current[destination.name]?[key] { return known }
        let row = try store.storage.committedRows(of: destination, keys: [key])[key]
        current[destination.name, default: [:]][key] = .some(row)
        return row
    }
}
