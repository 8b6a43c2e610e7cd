import ArgumentParser
import Foundation
import Roster
import RosterExampleSupport

/// A contact, stored as a typed record.
struct Contact: Record {
    var id: String
    var first: String
    var last: String
    /// The first letter of the last name: the section.
    var initial: String

    init(_ id: String, _ first: String, _ last: String) {
        self.id = id
        self.first = first
        self.last = last
        initial = String(last.prefix(1)).uppercased()
    }
}

@main
struct AddressBook: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "AddressBook",
        abstract: "An address book sectioned by the first letter of the last name, reacting to edits.",
        discussion: """
            Loads a few contacts, then: flips the sort A→Z / Z→A (sections and rows re-ordered, \
            reported as one change group), renames a contact so it moves to another section, and \
            deletes the last contact of a section (the section goes). Each step prints the \
            callbacks and the batch a list view would receive, and checks the batch with UIKit's rules.
            """)

    @Option(help: "Where to keep the address book (default: a temporary file).")
    var database: String?

    func run() throws {
        let store = try database.map { try Store(path: $0) } ?? Store.temporary()
        try store.define(Contact.self)
        let contacts = try ResultsController(store: store, request: FetchRequest(
            Contact.self, sortedBy: [.ascending(\.initial), .ascending(\.last), .ascending(\.first)], sectionedBy: \.initial))
        let collector = ChangeCollector()
        contacts.delegate = collector
        try contacts.performFetch()

        try step("Load 8 contacts", contacts, collector) {
            try store.write {
                for contact in [
                    Contact("c1", "Ada", "Lovelace"), Contact("c2", "Alan", "Turing"), Contact("c3", "Grace", "Hopper"),
                    Contact("c4", "Edsger", "Dijkstra"), Contact("c5", "Barbara", "Liskov"), Contact("c6", "Donald", "Knuth"),
                    Contact("c7", "Margaret", "Hamilton"), Contact("c8", "Ken", "Thompson"),
                ] { try store.insert(contact) }
            }
        }
        try step("Flip the sort to Z→A", contacts, collector) {
            try contacts.setSortKeys([SortKey("initial", ascending: false), SortKey("last", ascending: false), SortKey("first", ascending: false)])
        }
        try step("Flip it back to A→Z", contacts, collector) {
            try contacts.setSortKeys([SortKey("initial"), SortKey("last"), SortKey("first")])
        }
        try step("Grace Hopper marries and becomes Grace Murray (H → M)", contacts, collector) {
            var grace = try store.fetch(Contact.self, key: "c3")!
            grace = Contact(grace.id, grace.first, "Murray")
            try store.update(grace)
        }
        try step("Delete Edsger Dijkstra, the last contact under D", contacts, collector) {
            try store.delete(Contact.self, key: "c4")
        }
        try step("Rewrite every contact as it is (a sync that changes nothing)", contacts, collector) {
            try store.write { for contact in try contacts.records(as: Contact.self) { try store.update(contact) } }
        }
    }

    /// Runs one step, prints what the list view would receive, and checks it.
    func step(_ title: String, _ contacts: ResultsController, _ collector: ChangeCollector, _ body: () throws -> Void) throws {
        let before = contacts.snapshot
        try body()
        let groups = collector.take()
        guard let group = groups.first else {
            print("── \(title)\n(no change reported)\n")
            return
        }
        let batch = BatchAdapter().batch(for: group)
        print(ChangeLog.sideBySide(title, group, batch), terminator: "")
        try batch.validate(old: before, new: contacts.snapshot)
        print(ChangeLog.sectionLines(contacts.snapshot).joined(separator: "\n"))
        print("batch checked with UIKit's rules: valid\n")
    }
}
