#ifndef ROSTER_CAPTURE_H
#define ROSTER_CAPTURE_H

#include <stddef.h>

// Captures the rows that a connection's writes change, through SQLite's preupdate hook,
// as one compact buffer per tracked table: the store's own writes are logged per
// transaction instead of by per-row triggers. See ChangeCapture.swift for the format.

typedef struct sqlite3 sqlite3;
typedef struct roster_capture roster_capture;

/// 1 when the linked SQLite was built with the preupdate hook (Debian's is, and Apple's
/// system SQLite by `PRAGMA compile_options` on iOS 11.4 and later: Docs/ChangeTracking.md).
int roster_capture_is_available(void);

/// Installs the preupdate hook on `db`; NULL when unavailable or out of memory.
roster_capture *roster_capture_create(sqlite3 *db);

/// Removes the hooks (when `connection_is_open`; a closed connection has none to remove)
/// and frees everything.
void roster_capture_destroy(roster_capture *capture, int connection_is_open);

/// Starts capturing writes to `table` of the main database; returns its index among the
/// tracked tables, or -1 when out of memory. `columns[i]` is the table column holding the
/// i-th value to record; `key_column` is the table column of the key; `table_column_count`
/// is how many columns the table has (a write that sees another count is recorded with an
/// unknown row before it).
int roster_capture_track(roster_capture *capture, const char *table, int key_column,
                         const int *columns, int column_count, int table_column_count);

/// Stops capturing every table (and drops what was captured).
void roster_capture_untrack_all(roster_capture *capture);

/// How many tables are tracked.
int roster_capture_table_count(const roster_capture *capture);

/// How many chunks the table's captured entries fill (0 when nothing was captured).
int roster_capture_chunk_count(const roster_capture *capture, int table);

/// The bytes of one chunk, valid until the next write or roster_capture_clear.
const unsigned char *roster_capture_chunk(const roster_capture *capture, int table, int chunk, size_t *size);

/// Whether a capture failed since the last clear (out of memory): what was captured is
/// incomplete and the transaction must not commit.
int roster_capture_failed(const roster_capture *capture);

/// Drops every captured entry (after they were written to the log, or after a rollback).
void roster_capture_clear(roster_capture *capture);

/// Adds to every tracked table an entry whose row before is unknown, so that readers
/// re-fetch (the table's columns changed inside the transaction).
void roster_capture_mark_unknown(roster_capture *capture);

/// The rows the transaction left in `table` — the row now of each key it wrote, or none —
/// in the format of a chunk (tag 1: the row now follows; tag 0: no row now), valid until
/// the next write or roster_capture_clear; NULL when there are none or they were dropped
/// (out of memory, too large, or the table's columns changed). Not logged: the store's own
/// delivery reads them instead of the rows it just wrote.
const unsigned char *roster_capture_images(const roster_capture *capture, int table, size_t *size);

/// Whether to note `table`'s row images (1) or not (0, the default): they cost each write
/// a copy of its row, worth it only when a delivery in this process will take them.
void roster_capture_want_images(roster_capture *capture, int table, int wanted);

/// Pauses (1) or resumes (0) capturing, for the store's own bookkeeping writes.
void roster_capture_set_paused(roster_capture *capture, int paused);

/// Turns the connection's triggers on or off (SQLITE_DBCONFIG_ENABLE_TRIGGER, which
/// Swift cannot call: it is variadic). Returns SQLite's result code.
int roster_capture_set_triggers_enabled(sqlite3 *db, int enabled);

#endif
