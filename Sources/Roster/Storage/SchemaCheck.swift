/// What another connection did to the store's tables since the last delivery.
struct SchemaCheck {
    /// Entities whose change-log triggers or before-image table were gone (the table was
    /// recreated, for example by a migration tool) and have been put back: their live queries must re-fetch,
    /// since commits in between were not logged.
    var restored: Set<String> = []
    /// Entities whose table is missing or no longer holds their attributes, with the
    /// error their live queries hear.
    var broken: [String: StoreError] = [:]

    var isEmpty: Bool { restored.isEmpty && broken.isEmpty }
}
