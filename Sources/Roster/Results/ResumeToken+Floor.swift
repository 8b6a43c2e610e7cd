extension ResumeToken {
    /// The least a resume from this token reads, whatever its window: the change log
    /// since it and the rows it names, in one read at `store`'s cursor. Returns how many
    /// rows changed. For `roster bench`, which states this floor beside the resume's cost.
    ///
    /// - Throws: ``StoreError`` when the entity is not defined or the read fails.
    package func readChanges(in store: Store, of entityName: String) throws -> Int {
        let entity = try store.definedEntity(named: entityName)
        return try store.readingAtCursor(observing: entity.observedNames) { () throws(StoreError) in
            try store.touchedRows(of: entity, in: store.changes(observedBy: entity, since: position)).count
        }
    }
}
