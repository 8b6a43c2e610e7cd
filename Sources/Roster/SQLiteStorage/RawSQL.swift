/// Runs raw SQL for ``Store/execute(_:arguments:)`` and ``ExternalConnection/execute(_:)``:
/// every statement in order, refusing those that would control the transaction it runs in.
enum RawSQL {
    /// Runs each statement of `sql` on `connection`, in order, inside the caller's
    /// transaction or savepoint.
    ///
    /// SQLite splits the statements and tells what each one is (see
    /// ``Connection/rawStatements(in:)``), so quoting such as `SELECT 1 AS [']; COMMIT`
    /// hides nothing. Refused, with the statement's number:
    /// - transaction control (`BEGIN`, `COMMIT`, `END`, `ROLLBACK`, `SAVEPOINT`, `RELEASE`,
    ///   `ROLLBACK TO`): the caller owns the transaction, and a `COMMIT` would make its
    ///   later rollback undo nothing;
    /// - `ATTACH` and `DETACH`: an attached database stays attached after a rollback, so
    ///   a failed call would not leave the connection as it was, and the store tracks
    ///   changes in its own file only.
    ///
    /// `VACUUM` is not refused here: SQLite refuses it in a transaction ("cannot VACUUM
    /// from within a transaction"), and raw SQL always runs in one.
    ///
    /// A refused or failing statement leaves the statements before it run: the caller
    /// must roll back its transaction or savepoint, which undoes them.
    ///
    /// - Parameters:
    ///   - arguments: values for the `?` parameters of a single statement. Without
    ///     arguments, parameters are null, as SQLite leaves them.
    ///   - transactionReason: why transaction control is refused, for the message.
    ///   - afterEach: runs after each statement (the store's change capture looks for a
    ///     schema change there).
    /// - Throws: ``StoreError/rejectedSQL(_:)`` for a refused statement, or for arguments
    ///   with other than one statement; ``StoreError/database(_:)`` when SQLite refuses a
    ///   statement.
    static func run(
        _ sql: String, arguments: [Value], on connection: Connection, transactionReason: String,
        afterEach: () throws(DatabaseError) -> Void = {}, eachRow: (Statement) -> Void = { _ in }
    ) throws(StoreError) {
        let statements = connection.rawStatements(in: sql)
        while let statement = try next(of: statements, transactionReason: transactionReason) {
            if !arguments.isEmpty, statements.count > 1 {
                throw .rejectedSQL("raw SQL with arguments must be a single statement; statement \(statements.count) follows")
            }
            do throws(DatabaseError) {
                if !arguments.isEmpty { try statement.bind(arguments) }
                while try statement.step() { eachRow(statement) }
                try afterEach()
            } catch {
                throw .database(error)
            }
        }
        if !arguments.isEmpty, statements.count == 0 {
            throw .rejectedSQL("raw SQL with arguments must be a single statement; there is none")
        }
    }

    /// The next statement, with a refusal turned into a message that says what and where.
    ///
    /// - Throws: ``StoreError/rejectedSQL(_:)`` or ``StoreError/database(_:)``.
    private static func next(of statements: RawStatements, transactionReason: String) throws(StoreError) -> Statement? {
        do {
            return try statements.next()
        } catch {
            switch error {
            case let .database(error):
                throw .database(error)
            case let .refused(refusal):
                let place = "('\(refusal.command)' in statement \(refusal.number))"
                switch refusal.kind {
                case .transactionControl:
                    throw .rejectedSQL("raw SQL may not control transactions \(place): \(transactionReason)")
                case .attachment:
                    throw .rejectedSQL("raw SQL may not attach or detach databases \(place): "
                        + "attached databases outlive a rollback, and the store tracks only its own file")
                }
            }
        }
    }
}
