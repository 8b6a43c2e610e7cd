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
        // Objects whose related objects changed an attribute the paths read, or came or
        // went, as they are now; one that refers to several such objects is read once for
        // each of the joins.
        var referring: [[Value]] = []
        var joinsRead = 0
        for (index, join) in keyPaths.joins.enumerated() {
            guard let rows = changes.rowsByEntity[join.destination.name], !rows.isEmpty else { continue }
            let read = keyPaths.readAttributes(ofJoin: index)
            // `Value?.none`, not `nil`: a nil literal there is `Value.null` (Value is
            // ExpressibleByNilLiteral), which kept every untouched key as a null to look for.
            let keys = rows.compactMap { key, row -> Value? in
                guard let before = row.before, let after = row.after else { return row.isChanged ? key : Value?.none }
                return read.contains { $0 < before.count && $0 < after.count && before[$0] != after[$0] } ? key : Value?.none
            }
            guard !keys.isEmpty else { continue }
            referring += try storage.committedRows(of: entity, whereColumn: join.referenceColumn, in: keys)
            joinsRead += 1
        }
        var resolver = KeyPathResolver(store: self, entity: entity, keyPaths: keyPaths, changes: changes)
        var touched: [Value: TouchedRow] = [:]
        touched.reserveCapacity(own.count + referring.count)
        // The commit's own rows: their key-path values before and now, from the related
        // objects as they were and are (known ones without a query).
        for (key, row) in own where row.isChanged {
            let after = try row.after.map { stored throws(StoreError) in try resolver.extend(stored, now: true, knownAfter: nil) }
            let before = try row.before.map { stored throws(StoreError) in try resolver.extend(stored, now: false, knownAfter: after) }
            let extended = TouchedRow(before: before, after: after)
            if extended.isChanged { touched[key] = extended }
        }
        guard !referring.isEmpty else { return touched }
        // Objects the commit did not touch whose related objects changed, with their
        // key-path values before worked out from their stored row.
        var seen: Set<Value> = []
        for after in referring {
            let key = after[entity.keyIndex]
            if !own.isEmpty, own[key]?.isChanged == true { continue }
            if joinsRead > 1, !seen.insert(key).inserted { continue }
            let row = TouchedRow(before: try resolver.before(ofUntouched: after), after: after)
            if row.isChanged { touched[key] = row }
        }
        return touched
    }

    /// What committed writes did since `position` to the entity and to every entity its
    /// key paths reach, in one ``CommittedChanges`` (see
    /// ``StorageBackend/changes(of:since:readingRows:)``); `resync` set when the log no
    /// longer reaches back for one of them. A `scope` applies to an entity without key
    /// paths alone (another's rows change with the objects they refer to).
    func changes(observedBy entity: Entity, since position: Int64, readingRows scope: RowReadScope? = nil) throws(StoreError) -> CommittedChanges {
        var merged = CommittedChanges()
        let scope = entity.keyPaths == nil ? scope : nil
        for name in entity.observedNames {
            let changes = try storage.changes(of: self.definedEntity(named: name), since: position, readingRows: scope)
            merged.rowsByEntity[name] = changes.rowsByEntity[name]
            merged.resync = merged.resync ?? changes.resync
            merged.through = max(merged.through, changes.through)
        }
        return merged
    }
}

/// Works out an object's key-path values from its stored row, as they were before the
/// commits or as they are now.
private struct KeyPathResolver {
    let store: Store
    let keyPaths: KeyPathColumns
    /// What each join needs, worked out once for every row the commit touched.
    private let joins: [Join]

    private struct Join {
        /// Where the reference is in the entity's row (nil: not in it, so nothing to read).
        let reference: Int?
        let destination: Entity
        /// The key-path columns this join fills: their place in the extended row, and the
        /// attribute of the related object each reads.
        let columns: [(slot: Int, attribute: Int?)]
        /// The commits' rows of the related entity.
        let touched: [Value: TouchedRow]
        /// Whether `destination` is the entity as the store defines it now: the rows kept
        /// (``Store/relatedRows``) are laid out so; a query bound before the entity gained
        /// attributes reads its own, unkept (it noted rows without them, which a query
        /// bound since read as null).
        let isCurrent: Bool
    }

    init(store: Store, entity: Entity, keyPaths: KeyPathColumns, changes: CommittedChanges) {
        self.store = store
        self.keyPaths = keyPaths
        joins = keyPaths.joins.enumerated().map { index, join in
            let destination = join.destination
            let columns = keyPaths.columns.indices.filter { keyPaths.columns[$0].join == index }.map { column in
                (keyPaths.storedCount + column, destination.index(of: keyPaths.columns[column].attribute))
            }
            return Join(reference: entity.index(of: join.referenceColumn), destination: destination, columns: columns,
                        touched: changes.rowsByEntity[destination.name] ?? [:], isCurrent: store.entitiesByName[destination.name] == destination)
        }
    }

    /// `stored` (the object's stored row, before or now) with its key-path values then.
    /// Before the commits, a related object the commits touched is its before-image;
    /// otherwise it is the object as committed now (``Store/relatedRows``, or read). With
    /// `knownAfter`, the object's extended row now, a join whose key and related object did
    /// not change takes its values from there.
    mutating func extend(_ stored: [Value], now: Bool, knownAfter: [Value]?) throws(StoreError) -> [Value] {
        var row = stored
        row.reserveCapacity(stored.count + keyPaths.columns.count)
        row += repeatElement(Value.null, count: keyPaths.columns.count)
        for join in joins {
            guard let reference = join.reference else { continue }
            let key = row[reference]
            guard !key.isNull else { continue }
            let touched = join.touched.isEmpty ? nil : join.touched[key]
            if touched == nil, let knownAfter, knownAfter[reference] == key {
                // Same reference, and the related object untouched: its values are as now.
                for (slot, _) in join.columns { row[slot] = knownAfter[slot] }
                continue
            }
            let related: [Value]?
            if let touched {
                related = now ? touched.after : touched.before
            } else {
                related = try currentRow(of: join, key: key)
            }
            guard let related else { continue }
            for (slot, attribute) in join.columns {
                if let attribute, attribute < related.count { row[slot] = related[attribute] }
            }
        }
        return row
    }

    /// The extended row before the commits of an object whose stored row they did not
    /// change, from its extended row now: a copy of it with only the joins whose related
    /// object the commits touched (or whose reference, through an earlier join, was
    /// another then) filled again. What ``extend(_:now:knownAfter:)`` gives for
    /// `after`'s stored values, without building the row from nothing.
    mutating func before(ofUntouched after: [Value]) throws(StoreError) -> [Value] {
        var row = after
        for join in joins {
            guard let reference = join.reference else { continue }
            let key = row[reference]
            let touched = join.touched.isEmpty || key.isNull ? nil : join.touched[key]
            if touched == nil && after[reference] == key { continue }
            let related: [Value]?
            if key.isNull {
                related = nil
            } else if let touched {
                related = touched.before
            } else {
                related = try currentRow(of: join, key: key)
            }
            for (slot, attribute) in join.columns {
                if let related, let attribute, attribute < related.count { row[slot] = related[attribute] } else { row[slot] = .null }
            }
        }
        return row
    }

    /// The related object of `join` as committed now: known, or read and noted (when its
    /// entity is laid out as the store defines it now, ``Join/isCurrent``).
    private func currentRow(of join: Join, key: Value) throws(StoreError) -> [Value]? {
        let destination = join.destination
        if join.isCurrent, let known = store.relatedRows.row(of: destination.name, key: key) { return known }
        let row = try store.storage.committedRows(of: destination, keys: [key])[key]
        if join.isCurrent { store.relatedRows.note(row, of: destination.name, key: key) }
        return row
    }
}
