// The preupdate hook of the store's writing connection. The entry format is documented in
// Sources/Roster/SQLiteStorage/ChangeBatch.swift, which reads what this writes.
//
// Written in C because the hook runs once for every row a statement changes, inside
// sqlite3_step: it appends to buffers that grow by doubling, and does not cross into Swift.

// sqlite3.h declares the preupdate interfaces only when this is defined (Debian's
// libsqlite3 is built with it; roster_capture_is_available checks at run time).
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "RosterCapture.h"

/// An entry that takes a chunk past this many bytes moves to a chunk of its own, so that no
/// log entry nears SQLite's limit on the size of a value (SQLITE_MAX_LENGTH, 1e9 bytes by
/// default) unless one row alone does.
#define CHUNK_LIMIT (8u * 1024u * 1024u)
#define FORMAT_VERSION 1
/// Past this many bytes a table's row images are dropped (see put_image).
#define IMAGES_LIMIT (64u * 1024u * 1024u)

enum { TAG_INSERTED = 0, TAG_BEFORE = 1, TAG_UNKNOWN = 2, TAG_CHANGED = 3 };
enum { VALUE_NULL = 0, VALUE_INTEGER = 1, VALUE_REAL = 2, VALUE_TEXT = 3, VALUE_BLOB = 4 };

typedef struct {
    unsigned char *bytes;
    size_t size;
    size_t capacity;
} buffer;

typedef struct {
    char *name;
    int key_column;
    int *columns;
    int column_count;
    /// Scratch space for the indexes of the values an update changes.
    int *changed;
    int table_column_count;
    /// The bytes of a chunk's header (version and column count), before its first entry.
    size_t header_size;
    buffer *chunks;
    int chunk_count;
    int chunk_capacity;
    /// The rows as the transaction leaves them (see put_image).
    buffer images;
    /// Set when the images were dropped: out of memory, too large, or rows not mapped.
    int images_dropped;
    /// Whether a delivery in this process would take the images (a live query watches).
    int images_wanted;
} tracked_table;

struct roster_capture {
    sqlite3 *db;
    tracked_table *tables;
    int table_count;
    int table_capacity;
    int last_table;
    int failed;
    int paused;
    /// Whether the database's text is UTF-8, so that a text value's stored bytes are its
    /// UTF-8 (see value_bytes).
    int utf8;
};

int roster_capture_is_available(void) {
    return sqlite3_compileoption_used("ENABLE_PREUPDATE_HOOK");
}

// MARK: Buffers

/// Makes room for `more` bytes; sets `*failed` and returns 0 when out of memory.
static int reserve_or_flag(int *failed, buffer *b, size_t more) {
    if (b->size + more <= b->capacity) return 1;
    size_t capacity = b->capacity ? b->capacity : 4096;
    while (capacity < b->size + more) capacity *= 2;
    unsigned char *bytes = realloc(b->bytes, capacity);
    if (!bytes) {
        *failed = 1;
        return 0;
    }
    b->bytes = bytes;
    b->capacity = capacity;
    return 1;
}

static int reserve(roster_capture *capture, buffer *b, size_t more) {
    return reserve_or_flag(&capture->failed, b, more);
}

static void put_varint(buffer *b, uint64_t value) {
    while (value >= 0x80) {
        b->bytes[b->size++] = (unsigned char)(value | 0x80);
        value >>= 7;
    }
    b->bytes[b->size++] = (unsigned char)value;
}

/// The bytes of a text (`isText`) or blob value and their count.
///
/// `sqlite3_value_text` makes text NUL-terminated, which for a value read from a record —
/// every old value, and the new values an update copies — costs a malloc and a copy. When
/// the database is UTF-8 (`utf8`), a text value's bytes as they are stored are its UTF-8:
/// values from records and from SQL's registers are in the database's encoding (SQLite
/// converts bound and computed text to it). `sqlite3_value_blob` returns those bytes
/// without a copy and leaves the value's type TEXT. Otherwise `sqlite3_value_text`
/// converts the text to UTF-8.
static const void *value_bytes(int utf8, sqlite3_value *value, int isText, size_t *count) {
    // The pointer first, then the size: sqlite3_value_bytes counts what was returned.
    const void *data = isText && !utf8 ? (const void *)sqlite3_value_text(value) : sqlite3_value_blob(value);
    *count = (size_t)sqlite3_value_bytes(value);
    return data;
}

/// Appends a value; sets `*failed` and returns 0 when out of memory.
static int put_value_or_flag(int *failed, int utf8, buffer *b, sqlite3_value *value) {
    switch (sqlite3_value_type(value)) {
    case SQLITE_INTEGER: {
        if (!reserve_or_flag(failed, b, 11)) return 0;
        int64_t number = sqlite3_value_int64(value);
        b->bytes[b->size++] = VALUE_INTEGER;
        put_varint(b, ((uint64_t)number << 1) ^ (uint64_t)(number >> 63));
        return 1;
    }
    case SQLITE_FLOAT: {
        if (!reserve_or_flag(failed, b, 9)) return 0;
        double number = sqlite3_value_double(value);
        uint64_t bits;
        memcpy(&bits, &number, sizeof bits);
        b->bytes[b->size++] = VALUE_REAL;
        for (int i = 0; i < 8; i++) b->bytes[b->size++] = (unsigned char)(bits >> (8 * i));
        return 1;
    }
    case SQLITE_TEXT:
    case SQLITE_BLOB: {
        int isText = sqlite3_value_type(value) == SQLITE_TEXT;
        size_t count = 0;
        const void *data = value_bytes(utf8, value, isText, &count);
        if (!data && count > 0) {
            // SQLite could not make the text (out of memory).
            *failed = 1;
            return 0;
        }
        if (!reserve_or_flag(failed, b, 11 + count)) return 0;
        b->bytes[b->size++] = isText ? VALUE_TEXT : VALUE_BLOB;
        put_varint(b, count);
        if (count) memcpy(b->bytes + b->size, data, count);
        b->size += count;
        return 1;
    }
    default:
        if (!reserve_or_flag(failed, b, 1)) return 0;
        b->bytes[b->size++] = VALUE_NULL;
        return 1;
    }
}

static int put_value(roster_capture *capture, buffer *b, sqlite3_value *value) {
    return put_value_or_flag(&capture->failed, capture->utf8, b, value);
}

/// Starts a chunk (with its header) after the last one; NULL when out of memory.
static buffer *new_chunk(roster_capture *capture, tracked_table *table) {
    if (table->chunk_count == table->chunk_capacity) {
        int capacity = table->chunk_capacity ? table->chunk_capacity * 2 : 4;
        buffer *chunks = realloc(table->chunks, (size_t)capacity * sizeof *chunks);
        if (!chunks) {
            capture->failed = 1;
            return NULL;
        }
        memset(chunks + table->chunk_capacity, 0, (size_t)(capacity - table->chunk_capacity) * sizeof *chunks);
        table->chunks = chunks;
        table->chunk_capacity = capacity;
    }
    buffer *chunk = &table->chunks[table->chunk_count];
    chunk->size = 0;
    if (!reserve(capture, chunk, 12)) return NULL;
    table->chunk_count++;
    chunk->bytes[chunk->size++] = FORMAT_VERSION;
    put_varint(chunk, (uint64_t)table->column_count);
    table->header_size = chunk->size;
    return chunk;
}

/// The chunk the next entry goes into: the last one, or a first one.
static buffer *current_chunk(roster_capture *capture, tracked_table *table) {
    if (table->chunk_count > 0) return &table->chunks[table->chunk_count - 1];
    return new_chunk(capture, table);
}

/// Called once an entry was appended to the last chunk at offset `start`: when it took the
/// chunk past the limit and is not the chunk's only entry, it moves to a new chunk.
static void finish_entry(roster_capture *capture, tracked_table *table, size_t start) {
    if (capture->failed || table->chunk_count == 0) return;
    size_t size = table->chunks[table->chunk_count - 1].size;
    if (size <= CHUNK_LIMIT || start <= table->header_size) return;
    if (!new_chunk(capture, table)) return;
    // Both by index: starting a chunk may have moved the array.
    buffer *full = &table->chunks[table->chunk_count - 2];
    buffer *next = &table->chunks[table->chunk_count - 1];
    size_t length = size - start;
    if (!reserve(capture, next, length)) return;
    memcpy(next->bytes + next->size, full->bytes + start, length);
    next->size += length;
    full->size = start;
}

// MARK: The hook

/// Whether two values are the same for the change log: numbers by value (1 is 1.0, as
/// SQL's IS has it), text and blobs by bytes, whatever the column's collation.
static int same_value(int utf8, sqlite3_value *a, sqlite3_value *b) {
    int ta = sqlite3_value_type(a), tb = sqlite3_value_type(b);
    if (ta == SQLITE_NULL || tb == SQLITE_NULL) return ta == tb;
    if (ta == SQLITE_INTEGER && tb == SQLITE_INTEGER) return sqlite3_value_int64(a) == sqlite3_value_int64(b);
    if (ta == SQLITE_FLOAT && tb == SQLITE_FLOAT) return sqlite3_value_double(a) == sqlite3_value_double(b);
    if ((ta == SQLITE_INTEGER && tb == SQLITE_FLOAT) || (ta == SQLITE_FLOAT && tb == SQLITE_INTEGER)) {
        sqlite3_int64 integer = sqlite3_value_int64(ta == SQLITE_INTEGER ? a : b);
        double real = sqlite3_value_double(ta == SQLITE_FLOAT ? a : b);
        if (!(real >= -9223372036854775808.0 && real < 9223372036854775808.0)) return 0;
        return (double)integer == real && (sqlite3_int64)real == integer;
    }
    if (ta != tb) return 0;
    size_t na = 0, nb = 0;
    const void *pa = value_bytes(utf8, a, ta == SQLITE_TEXT, &na);
    const void *pb = value_bytes(utf8, b, tb == SQLITE_TEXT, &nb);
    if (na != nb) return 0;
    if (na == 0) return 1;
    // Out of memory making the text: say "changed", which logs the row (or fails the capture).
    if (!pa || !pb) return 0;
    return memcmp(pa, pb, na) == 0;
}

static int find_table(roster_capture *capture, const char *name) {
    if (capture->last_table < capture->table_count && sqlite3_stricmp(capture->tables[capture->last_table].name, name) == 0) {
        return capture->last_table;
    }
    for (int i = 0; i < capture->table_count; i++) {
        if (sqlite3_stricmp(capture->tables[i].name, name) == 0) {
            capture->last_table = i;
            return i;
        }
    }
    return -1;
}

typedef int (*row_reader)(sqlite3 *, int, sqlite3_value **);

static void put_entry(roster_capture *capture, tracked_table *table, int tag, sqlite3_value *key, row_reader read) {
    buffer *chunk = current_chunk(capture, table);
    if (!chunk || !reserve(capture, chunk, 2)) return;
    size_t start = chunk->size;
    chunk->bytes[chunk->size++] = (unsigned char)tag;
    if (key) {
        if (!put_value(capture, chunk, key)) return;
    } else {
        chunk->bytes[chunk->size++] = VALUE_NULL;
    }
    for (int i = 0; tag == TAG_BEFORE && i < table->column_count; i++) {
        sqlite3_value *value = NULL;
        if (read(capture->db, table->columns[i], &value) != SQLITE_OK || !value) {
            capture->failed = 1;
            return;
        }
        if (!put_value(capture, chunk, value)) return;
    }
    finish_entry(capture, table, start);
}

/// An update that kept the key: the key, then the index and old value of each value it changed.
static void put_changes(roster_capture *capture, tracked_table *table, sqlite3_value *key, int count) {
    buffer *chunk = current_chunk(capture, table);
    if (!chunk || !reserve(capture, chunk, 1)) return;
    size_t start = chunk->size;
    chunk->bytes[chunk->size++] = TAG_CHANGED;
    if (!put_value(capture, chunk, key) || !reserve(capture, chunk, 10)) return;
    put_varint(chunk, (uint64_t)count);
    for (int i = 0; i < count; i++) {
        int index = table->changed[i];
        sqlite3_value *value = NULL;
        if (sqlite3_preupdate_old(capture->db, table->columns[index], &value) != SQLITE_OK || !value) {
            capture->failed = 1;
            return;
        }
        if (!reserve(capture, chunk, 10)) return;
        put_varint(chunk, (uint64_t)index);
        if (!put_value(capture, chunk, value)) return;
    }
    finish_entry(capture, table, start);
}

/// Drops the table's row images for the rest of the transaction: readers read the rows.
static void drop_images(tracked_table *table) {
    free(table->images.bytes);
    table->images = (buffer){0};
    table->images_dropped = 1;
}

/// Notes the row `key` has as the write leaves it — its new values, or none (`has_row`
/// 0) — in the table's images: a buffer in the format of a chunk whose tag 1 entries hold
/// the row *now* and tag 0 entries say the key has no row. They are not logged: the
/// store's own delivery takes them instead of reading back the rows it just wrote. Out of
/// memory or past IMAGES_LIMIT they are dropped, which fails nothing.
static void put_image(roster_capture *capture, tracked_table *table, sqlite3_value *key, int has_row) {
    if (!table->images_wanted || table->images_dropped) return;
    buffer *b = &table->images;
    int *dropped = &table->images_dropped;
    if (b->size == 0) {
        if (!reserve_or_flag(dropped, b, 12)) goto drop;
        b->bytes[b->size++] = FORMAT_VERSION;
        put_varint(b, (uint64_t)table->column_count);
    }
    if (!reserve_or_flag(dropped, b, 1)) goto drop;
    b->bytes[b->size++] = (unsigned char)(has_row ? TAG_BEFORE : TAG_INSERTED);
    if (!put_value_or_flag(dropped, capture->utf8, b, key)) goto drop;
    for (int i = 0; has_row && i < table->column_count; i++) {
        sqlite3_value *value = NULL;
        if (sqlite3_preupdate_new(capture->db, table->columns[i], &value) != SQLITE_OK || !value) goto drop;
        if (!put_value_or_flag(dropped, capture->utf8, b, value)) goto drop;
    }
    if (b->size <= IMAGES_LIMIT) return;
drop:
    drop_images(table);
}

static void preupdate(void *context, sqlite3 *db, int op, const char *database, const char *name,
                      sqlite3_int64 oldRowid, sqlite3_int64 newRowid) {
    (void)oldRowid;
    (void)newRowid;
    roster_capture *capture = context;
    if (capture->paused || capture->failed || strcmp(database, "main") != 0) return;
    int index = find_table(capture, name);
    if (index < 0) return;
    tracked_table *table = &capture->tables[index];
    if (sqlite3_preupdate_count(db) != table->table_column_count) {
        // The table's columns changed since they were read: the row cannot be mapped.
        put_entry(capture, table, TAG_UNKNOWN, NULL, NULL);
        drop_images(table);
        return;
    }
    sqlite3_value *oldKey = NULL, *newKey = NULL;
    switch (op) {
    case SQLITE_INSERT:
        if (sqlite3_preupdate_new(db, table->key_column, &newKey) != SQLITE_OK) break;
        put_entry(capture, table, TAG_INSERTED, newKey, NULL);
        put_image(capture, table, newKey, 1);
        return;
    case SQLITE_DELETE:
        if (sqlite3_preupdate_old(db, table->key_column, &oldKey) != SQLITE_OK) break;
        put_entry(capture, table, TAG_BEFORE, oldKey, sqlite3_preupdate_old);
        put_image(capture, table, oldKey, 0);
        return;
    case SQLITE_UPDATE: {
        int changed = 0, failed = 0;
        for (int i = 0; i < table->column_count; i++) {
            sqlite3_value *before = NULL, *after = NULL;
            if (sqlite3_preupdate_old(db, table->columns[i], &before) != SQLITE_OK
                || sqlite3_preupdate_new(db, table->columns[i], &after) != SQLITE_OK) {
                failed = 1;
                break;
            }
            if (!same_value(capture->utf8, before, after)) table->changed[changed++] = i;
        }
        if (failed) break;
        if (!changed) return;  // A write of the values the row already holds changes nothing.
        if (sqlite3_preupdate_old(db, table->key_column, &oldKey) != SQLITE_OK
            || sqlite3_preupdate_new(db, table->key_column, &newKey) != SQLITE_OK) break;
        if (same_value(capture->utf8, oldKey, newKey) && sqlite3_value_type(oldKey) == sqlite3_value_type(newKey)) {
            // The usual update: only the values it changes are logged, with their old values.
            put_changes(capture, table, oldKey, changed);
            put_image(capture, table, newKey, 1);
            return;
        }
        // The key changed: the old key left with its whole row, and a new key came.
        put_entry(capture, table, TAG_BEFORE, oldKey, sqlite3_preupdate_old);
        put_image(capture, table, oldKey, 0);
        if (sqlite3_preupdate_new(db, table->key_column, &newKey) != SQLITE_OK) break;
        put_entry(capture, table, TAG_INSERTED, newKey, NULL);
        put_image(capture, table, newKey, 1);
        return;
    }
    default:
        return;
    }
    capture->failed = 1;
}

/// A commit with captured entries that were not written to the log would lose them: it is
/// turned into a rollback (SQLITE_CONSTRAINT_COMMITHOOK).
static int commit_hook(void *context) {
    roster_capture *capture = context;
    if (capture->failed) return 1;
    for (int i = 0; i < capture->table_count; i++) {
        if (capture->tables[i].chunk_count > 0) return 1;
    }
    return 0;
}

static void rollback_hook(void *context) {
    roster_capture_clear(context);
}

// MARK: The interface

roster_capture *roster_capture_create(sqlite3 *db) {
    if (!roster_capture_is_available()) return NULL;
    roster_capture *capture = calloc(1, sizeof *capture);
    if (!capture) return NULL;
    capture->db = db;
    sqlite3_preupdate_hook(db, preupdate, capture);
    sqlite3_commit_hook(db, commit_hook, capture);
    sqlite3_rollback_hook(db, rollback_hook, capture);
    return capture;
}

void roster_capture_destroy(roster_capture *capture, int connection_is_open) {
    if (!capture) return;
    if (connection_is_open) {
        sqlite3_preupdate_hook(capture->db, NULL, NULL);
        sqlite3_commit_hook(capture->db, NULL, NULL);
        sqlite3_rollback_hook(capture->db, NULL, NULL);
    }
    roster_capture_untrack_all(capture);
    free(capture->tables);
    free(capture);
}

/// Whether the main database's text encoding is UTF-8 (0 when it cannot be read, which
/// only costs copies).
static int database_is_utf8(sqlite3 *db) {
    sqlite3_stmt *statement = NULL;
    int utf8 = 0;
    if (sqlite3_prepare_v2(db, "PRAGMA main.encoding", -1, &statement, NULL) == SQLITE_OK
        && sqlite3_step(statement) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(statement, 0);
        utf8 = name && strcmp((const char *)name, "UTF-8") == 0;
    }
    sqlite3_finalize(statement);
    return utf8;
}

int roster_capture_track(roster_capture *capture, const char *name, int key_column,
                         const int *columns, int column_count, int table_column_count) {
    // A file's encoding is fixed once it has tables, as it does when one is tracked.
    capture->utf8 = database_is_utf8(capture->db);
    if (capture->table_count == capture->table_capacity) {
        int capacity = capture->table_capacity ? capture->table_capacity * 2 : 4;
        tracked_table *tables = realloc(capture->tables, (size_t)capacity * sizeof *tables);
        if (!tables) return -1;
        capture->tables = tables;
        capture->table_capacity = capacity;
    }
    tracked_table table = {0};
    size_t length = strlen(name);
    table.name = malloc(length + 1);
    table.columns = malloc((size_t)(column_count > 0 ? column_count : 1) * sizeof *table.columns);
    table.changed = malloc((size_t)(column_count > 0 ? column_count : 1) * sizeof *table.changed);
    if (!table.name || !table.columns || !table.changed) {
        free(table.name);
        free(table.columns);
        free(table.changed);
        return -1;
    }
    memcpy(table.name, name, length + 1);
    if (column_count > 0) memcpy(table.columns, columns, (size_t)column_count * sizeof *columns);
    table.key_column = key_column;
    table.column_count = column_count;
    table.table_column_count = table_column_count;
    capture->tables[capture->table_count] = table;
    return capture->table_count++;
}

void roster_capture_untrack_all(roster_capture *capture) {
    roster_capture_clear(capture);
    for (int i = 0; i < capture->table_count; i++) {
        tracked_table *table = &capture->tables[i];
        for (int j = 0; j < table->chunk_capacity; j++) free(table->chunks[j].bytes);
        free(table->chunks);
        free(table->images.bytes);
        free(table->columns);
        free(table->changed);
        free(table->name);
    }
    capture->table_count = 0;
    capture->last_table = 0;
}

int roster_capture_table_count(const roster_capture *capture) {
    return capture->table_count;
}

int roster_capture_chunk_count(const roster_capture *capture, int table) {
    if (table < 0 || table >= capture->table_count) return 0;
    return capture->tables[table].chunk_count;
}

const unsigned char *roster_capture_chunk(const roster_capture *capture, int table, int chunk, size_t *size) {
    *size = 0;
    if (table < 0 || table >= capture->table_count) return NULL;
    const tracked_table *tracked = &capture->tables[table];
    if (chunk < 0 || chunk >= tracked->chunk_count) return NULL;
    *size = tracked->chunks[chunk].size;
    return tracked->chunks[chunk].bytes;
}

int roster_capture_failed(const roster_capture *capture) {
    return capture->failed;
}

void roster_capture_clear(roster_capture *capture) {
    capture->failed = 0;
    for (int i = 0; i < capture->table_count; i++) {
        tracked_table *table = &capture->tables[i];
        // Chunks keep their memory for the next transaction; only the first keeps it past
        // a large one, so that one bulk write does not pin its size for good.
        for (int j = 1; j < table->chunk_capacity; j++) {
            free(table->chunks[j].bytes);
            table->chunks[j] = (buffer){0};
        }
        if (table->chunk_capacity > 0) {
            table->chunks[0].size = 0;
            if (table->chunks[0].capacity > (1u << 20)) {
                free(table->chunks[0].bytes);
                table->chunks[0] = (buffer){0};
            }
        }
        table->chunk_count = 0;
        table->images_dropped = 0;
        table->images.size = 0;
        if (table->images.capacity > (1u << 20)) {
            free(table->images.bytes);
            table->images = (buffer){0};
        }
    }
}

void roster_capture_mark_unknown(roster_capture *capture) {
    for (int i = 0; i < capture->table_count; i++) {
        put_entry(capture, &capture->tables[i], TAG_UNKNOWN, NULL, NULL);
        drop_images(&capture->tables[i]);
    }
}

void roster_capture_want_images(roster_capture *capture, int table, int wanted) {
    if (table >= 0 && table < capture->table_count) capture->tables[table].images_wanted = wanted;
}

const unsigned char *roster_capture_images(const roster_capture *capture, int table, size_t *size) {
    *size = 0;
    if (table < 0 || table >= capture->table_count) return NULL;
    const tracked_table *tracked = &capture->tables[table];
    if (tracked->images_dropped || tracked->images.size == 0) return NULL;
    *size = tracked->images.size;
    return tracked->images.bytes;
}

void roster_capture_set_paused(roster_capture *capture, int paused) {
    capture->paused = paused;
}

int roster_capture_set_triggers_enabled(sqlite3 *db, int enabled) {
    int now = 0;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, enabled, &now);
}
