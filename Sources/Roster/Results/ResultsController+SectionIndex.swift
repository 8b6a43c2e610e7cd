/// The section index of a list view (the letters down its side), as
/// NSFetchedResultsController gives it: a title per section, each title once.
extension ResultsController {
    /// The section index's titles: each section's title (``sectionIndexTitle(forSectionName:)``,
    /// or the delegate's ``ResultsControllerDelegate/controller(_:sectionIndexTitleForSectionName:)``),
    /// in section order, each title once; sections without a title are left out. With a
    /// window, the sections it shows. O(sections).
    public var sectionIndexTitles: [String] {
        var titles: [String] = []
        var seen = Set<String>()
        for name in sectionNames {
            if let title = indexTitle(of: name), seen.insert(title).inserted { titles.append(title) }
        }
        return titles
    }

    /// The section a title of the section index stands for: the first section (of the
    /// window, with one) whose title is `title`; nil when none has it (a search entry, say).
    ///
    /// - Parameters:
    ///   - title: a title of ``sectionIndexTitles``.
    ///   - index: its position there. The title decides, so that an index with entries of
    ///     its own (a search symbol) still finds its sections; the position is not used.
    public func section(forSectionIndexTitle title: String, at index: Int) -> Int? {
        sectionNames.firstIndex { indexTitle(of: $0) == title }
    }

    /// The section index title of a section name by default: the name's first character,
    /// uppercased (`ß` gives `SS`), for a name that is text (its first digit or sign for a
    /// number, `T` or `F` for a bool); nil for null, empty text, or bytes that are not
    /// UTF-8. A section without a title is left out of the index.
    public func sectionIndexTitle(forSectionName name: Value) -> String? {
        let text: String
        switch name {
        case .null, .invalidUTF8: return nil
        case let .string(string): text = string
        case let .bool(flag): text = flag ? "T" : "F"
        case .integer, .double: text = name.description
        }
        return text.first.map { String($0).uppercased() }
    }

    /// A section's title: the delegate's, else the default.
    private func indexTitle(of name: Value) -> String? {
        delegate?.controller(self, sectionIndexTitleForSectionName: name) ?? sectionIndexTitle(forSectionName: name)
    }

    /// The names of the sections shown, in order.
    private var sectionNames: [Value] {
        if let shown = windowTracker?.shown { return shown.map(\.id) }
        guard let engine else { return [] }
        return (0..<engine.numberOfSections).map(engine.sectionName)
    }
}
