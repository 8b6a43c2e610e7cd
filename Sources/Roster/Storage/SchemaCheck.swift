/// What another connection did to the store's tables since the last delivery.
struct SchemaCheck {
    /// Entities whose change-log triggers were gone (the table was recreated, for example
    /// by a migration tool) or not the current ones (an older Roster put its own back), and
    /// have been written again: their live queries must re-fetch, since commits in between
    /// were not logged, or not as this Roster reads them.
    var restored: Set<String> = []
    /// Entities whose table is missing or no longer holds their attributes, with the
    /// error their live queries hear.
    var broken: [String: StoreError] = [:]

    /// Whether the check put change logs back (``restored`` lists them at the next check):
    /// it committed after this read's snapshot, which misses the writes the logs missed,
    /// so the delivery reads again in a new one.
    var needsNewRead = false

    var isEmpty: Bool { restored.isEmpty && broken.isEmpty && !needsNewRead }
}
