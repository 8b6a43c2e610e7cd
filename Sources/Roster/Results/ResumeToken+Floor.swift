extension ResumeToken {
    /// The least a resume from this token reads when it reads every row the change log
    /// names since it: the log and those rows, in one read at `store`'s cursor. Returns
    /// how many rows changed. For `roster bench`, which states this floor beside the
    /// resume's cost.
    ///
    /// - Throws: ``StoreError`` when the entity is not defined or the read fails.
    package func readChanges(in store: Store, of entityName: String) throws -> Int {
        let entity = try store.definedEntity(named: entityName)
        return try store.readingAtCursor(observing: entity.observedNames) { () throws(StoreError) in
            try store.touchedRows(of: entity, in: store.changes(observedBy: entity, since: position)).count
        }
    }

    /// The least a resume of `request`'s window from this token reads: the change log since
    /// it, the rows whose commits may have placed them differently (``RowReadScope``), and
    /// the rows the window showed, in one read at `store`'s cursor. Returns how many rows it
    /// read. For `roster bench`, beside the resume's cost.
    ///
    /// - Throws: ``StoreError`` when the request does not bind or the read fails.
    package func readChangesThatCanMove(in store: Store, request: FetchRequest) throws -> Int {
        let query = try store.bind(request)
        let shown = sections.flatMap(\.items)
        let scope = RowReadScope(placingAttributes: query.placingAttributes, keys: Set(shown))
        return try store.readingAtCursor(observing: query.entity.observedNames) { () throws(StoreError) in
            let touched = try store.touchedRows(of: query.entity, in: store.changes(observedBy: query.entity, since: position, readingRows: scope))
            return try touched.count + store.fetchCommittedRows(query.entity, keys: shown.filter { touched[$0] == nil }).count
        }
    }
}
