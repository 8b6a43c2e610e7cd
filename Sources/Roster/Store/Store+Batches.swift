/// Many entities at once: defined in one schema change, tracked in one more.
///
/// Each schema change makes every connection to the file read its whole schema again (the
/// store's own reading connection among them), so defining and watching entities one at a
/// time costs time in proportion to the square of their number: seconds for a few hundred
/// entities, a minute for a thousand. In batches it is two schema changes in all.
extension Store {
    /// Defines several new entities at once: their tables are created in one transaction,
    /// one schema change for all.
    ///
    /// ```swift
    /// let kinds = try (0..<1_000).map { index in
    ///     try Entity("Kind\(index)", key: "id", attributes: [Attribute("id", .string), Attribute("title", .string)])
    /// }
    /// try store.define(kinds)
    /// try store.startTracking(kinds.map(\.name))   // before live queries watch them all
    /// ```
    ///
    /// An entity the store already defines as it is given is skipped. A relationship may
    /// refer to an entity the store defines or to one anywhere in the batch. The batch is
    /// all or nothing: when one entity cannot be defined, none is, and the error names it.
    /// To add attributes to an entity (a migration), define it alone, with the `define`
    /// that takes one entity.
    ///
    /// - Parameter entities: the entities to define.
    /// - Throws: ``StoreError`` naming the first entity that cannot be defined and why,
    ///   with nothing defined: ``StoreError/Code/schema`` for a name twice in the batch
    ///   (in any letter case), a name the store has in another letter case, or a
    ///   relationship to an entity neither defined nor in the batch;
    ///   ``StoreError/schemaMismatch(entity:reason:)`` for an entity the store defines
    ///   with another definition, or a table of its name that Roster did not create;
    ///   ``StoreError/Code/transaction`` inside a transaction; ``StoreError/database(_:)``.
    /// - Complexity: one schema change, and work in proportion to the batch, whatever the
    ///   number of entities the store has.
    public func define(_ entities: [Entity]) throws {
        try defineBatch(entities)
    }

    /// Starts recording the changes of these entities now, all in one transaction, before
    /// the live queries that will watch them open.
    ///
    /// Otherwise an entity's changes are recorded from the moment a live query first
    /// watches it, and on SQLite that is a schema change (the entity's change log: four
    /// triggers) at each entity's first live query. Opening live queries on many entities
    /// costs one schema change in all after this call. Entities whose changes are recorded
    /// already, by this store or another process, are skipped; when every one is, nothing
    /// is written. Like a live query's first fetch, it first delivers to the store's live
    /// queries what other connections committed since the last delivery.
    ///
    /// - Parameter entityNames: names of entities the store defines.
    /// - Throws: ``StoreError/unknownEntity(_:)``; ``StoreError/Code/transaction`` inside a
    ///   transaction or a delivery (a delegate callback); on a read-only store,
    ///   ``StoreError/schemaMismatch(entity:reason:)`` for an entity whose changes are
    ///   not recorded yet; ``StoreError/database(_:)``. Nothing is started then.
    public func startTracking(_ entityNames: [String]) throws {
        guard !isInTransaction, !isDelivering else {
            throw StoreError.transaction("startTracking: change tracking starts outside transactions and deliveries (delegate callbacks)")
        }
        for name in entityNames { _ = try definedEntity(named: name) }
        guard !entityNames.isEmpty else { return }
        try readingAtCursor(observing: entityNames) { () throws(StoreError) in }
    }

    /// The batch `define`, throwing ``StoreError`` alone.
    private func defineBatch(_ entities: [Entity]) throws(StoreError) {
        guard !isInTransaction else {
            throw .transaction("define: entities are defined outside transactions")
        }
        var batch: [String: Entity] = [:]
        var positions: [String: Int] = [:]
        var new: [Entity] = []
        // The store's names folded once, not once per entity of the batch.
        let stored = Dictionary(entitiesByName.keys.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        for (position, entity) in entities.enumerated() {
            let folded = entity.name.lowercased()
            if let earlier = positions[folded] {
                let other = entities[earlier].name
                throw .schema(other == entity.name
                    ? SchemaError("entity '\(entity.name)' is twice in the batch (entries \(earlier + 1) and \(position + 1)); name each entity once. Nothing was defined")
                    : .caseClash(entity.name, with: other))
            }
            positions[folded] = position
            batch[entity.name] = entity
            if let existing = entitiesByName[entity.name] {
                guard existing == entity else {
                    throw .schemaMismatch(entity: entity.name, reason: "the store defines it already with another definition (\(EntityDefinition.describe(existing))); a batch defines new entities only: define it alone to migrate it. Nothing was defined")
                }
                continue
            }
            if let clash = stored[folded] {
                throw .schema(.caseClash(entity.name, with: clash))
            }
            new.append(entity)
        }
        for entity in new { try checkRelationships(of: entity, among: batch) }
        guard !new.isEmpty else { return }
        try storage.create(new)
        for entity in new { entitiesByName[entity.name] = entity }
    }
}
