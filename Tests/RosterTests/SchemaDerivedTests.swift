import Foundation
@testable import Roster
import Testing

/// `Connection.schemaDerived(_:)`: a value worked out from the schema is kept until the
/// schema version changes, and shared by a store's reader and writer.
@Suite struct SchemaDerivedTests {
    @Test func aValueIsWorkedOutAgainOnlyWhenTheSchemaChanges() throws {
        try withPostStoreFile { path in
            let connection = try Connection(path: path)
            var computed = 0
            func columns() throws -> ChangeLogColumns {
                try connection.schemaDerived { () throws(DatabaseError) in
                    computed += 1
                    return try SchemaCatalog.logColumns(on: connection)
                }
            }
            let first = try columns()
            #expect(try columns().images == first.images)
            #expect(computed == 1)
            // Another connection adds an image column: the next read sees it.
            let other = try Connection(path: path)
            try other.execute("ALTER TABLE _roster_changes ADD COLUMN \(SchemaCatalog.imageColumn(first.images))")
            #expect(try columns().images == first.images + 1)
            #expect(computed == 2)
        }
    }

    @Test func nothingIsKeptFromInsideAWriteTransaction() throws {
        try withPostStoreFile { path in
            let connection = try Connection(path: path)
            let before = try SchemaCatalog.logColumns(on: connection).images
            try connection.execute("BEGIN IMMEDIATE")
            try connection.execute("ALTER TABLE _roster_changes ADD COLUMN \(SchemaCatalog.imageColumn(before))")
            #expect(try SchemaCatalog.logColumns(on: connection).images == before + 1)
            try connection.execute("ROLLBACK")
            // Another connection's change now takes the version the rolled-back one had.
            let other = try Connection(path: path)
            try other.execute("ALTER TABLE _roster_changes ADD COLUMN \(SchemaCatalog.imageColumn(before)); ALTER TABLE _roster_changes ADD COLUMN \(SchemaCatalog.imageColumn(before + 1))")
            #expect(try SchemaCatalog.logColumns(on: connection).images == before + 2)
        }
    }

    @Test func aStoresReaderAndWriterShareWhatTheyWorkOut() throws {
        try withPostStoreFile { path in
            let store = try Store(path: path)
            var computed = 0
            for connection in [store.writer, store.reader, store.writer] {
                _ = try connection.schemaDerived { () throws(DatabaseError) -> ChangeLogColumns in
                    computed += 1
                    return try SchemaCatalog.logColumns(on: connection)
                }
            }
            #expect(computed == 1)
        }
    }
}
