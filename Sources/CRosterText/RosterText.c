// Unicode case and diacritic folding for a predicate's [c], [d] and [cd], one
// implementation for both sides: Swift's evaluator calls roster_fold, and SQLite calls it
// through the SQL function roster_fold(value, mode). C, because SQLite calls it for every
// row a query reads (Docs/Architecture.md, "Folding text").
#include "RosterText.h"
#include "TextFoldingTables.h"

#include <string.h>

#define HANGUL_FIRST 0xAC00u
#define HANGUL_LAST 0xD7A3u

/// Reads one scalar of strict UTF-8 at text[*index], advancing past it, or returns -1
/// (advancing by nothing) when the bytes there are not valid UTF-8.
static int32_t read_scalar(const uint8_t *text, size_t length, size_t *index) {
    size_t i = *index;
    uint8_t lead = text[i];
    uint32_t scalar;
    size_t count;
    if (lead < 0x80) { *index = i + 1; return lead; }
    if (lead >= 0xC2 && lead <= 0xDF) { scalar = lead & 0x1F; count = 1; }
    else if (lead >= 0xE0 && lead <= 0xEF) { scalar = lead & 0x0F; count = 2; }
    else if (lead >= 0xF0 && lead <= 0xF4) { scalar = lead & 0x07; count = 3; }
    else return -1;
    if (length - i - 1 < count) return -1;
    for (size_t k = 1; k <= count; k++) {
        uint8_t byte = text[i + k];
        if ((byte & 0xC0) != 0x80) return -1;
        scalar = (scalar << 6) | (byte & 0x3F);
    }
    // Overlong forms, surrogates and scalars past U+10FFFF are not valid UTF-8.
    if ((count == 2 && scalar < 0x800) || (count == 3 && scalar < 0x10000)
        || (scalar >= 0xD800 && scalar <= 0xDFFF) || scalar > 0x10FFFF) return -1;
    *index = i + 1 + count;
    return (int32_t)scalar;
}

static size_t write_scalar(uint32_t scalar, uint8_t *out) {
    if (scalar < 0x80) { out[0] = (uint8_t)scalar; return 1; }
    if (scalar < 0x800) {
        out[0] = (uint8_t)(0xC0 | (scalar >> 6));
        out[1] = (uint8_t)(0x80 | (scalar & 0x3F));
        return 2;
    }
    if (scalar < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (scalar >> 12));
        out[1] = (uint8_t)(0x80 | ((scalar >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (scalar & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | (scalar >> 18));
    out[1] = (uint8_t)(0x80 | ((scalar >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((scalar >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (scalar & 0x3F));
    return 4;
}

/// The table entry of a scalar from U+0080, or NULL when the scalar folds to itself.
static const roster_fold_entry *find(const roster_fold_entry *entries, size_t count, uint32_t scalar) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (entries[middle].scalar < scalar) low = middle + 1;
        else high = middle;
    }
    return low < count && entries[low].scalar == scalar ? &entries[low] : NULL;
}

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/// The mapping of a non-ASCII scalar for a mode, as a run of the mode's pool; false when
/// it maps to itself. Hangul syllables are left to the caller.
static int lookup(uint32_t scalar, int mode, const uint32_t **run, size_t *count) {
    const roster_fold_entry *entry;
    const uint32_t *pool;
    switch (mode & (ROSTER_FOLD_CASE | ROSTER_FOLD_DIACRITICS)) {
    case ROSTER_FOLD_CASE:
        entry = find(roster_fold_case_entries, COUNT(roster_fold_case_entries), scalar);
        pool = roster_fold_case_pool;
        break;
    case ROSTER_FOLD_DIACRITICS:
        entry = find(roster_fold_diacritics_entries, COUNT(roster_fold_diacritics_entries), scalar);
        pool = roster_fold_diacritics_pool;
        break;
    case ROSTER_FOLD_CASE | ROSTER_FOLD_DIACRITICS:
        entry = find(roster_fold_both_entries, COUNT(roster_fold_both_entries), scalar);
        pool = roster_fold_both_pool;
        break;
    default:
        return 0;
    }
    if (entry == NULL) return 0;
    *run = pool + entry->offset;
    *count = entry->count;
    return 1;
}

static int is_hangul(uint32_t scalar) { return scalar >= HANGUL_FIRST && scalar <= HANGUL_LAST; }

/// Appends a scalar's UTF-8 to `out` at `*written`, or only counts its bytes when `out`
/// is NULL.
static void emit(uint32_t scalar, uint8_t *out, size_t *written) {
    if (out != NULL) {
        *written += write_scalar(scalar, out + *written);
    } else {
        *written += scalar < 0x80 ? 1 : scalar < 0x800 ? 2 : scalar < 0x10000 ? 3 : 4;
    }
}

/// The one pass behind roster_fold_measure (`out` NULL) and roster_fold: the folded
/// length, and in `*changes` whether anything folded.
static size_t fold_pass(const uint8_t *text, size_t length, int mode, uint8_t *out, int *changes) {
    const int foldsCase = (mode & ROSTER_FOLD_CASE) != 0;
    size_t index = 0, written = 0;
    *changes = 0;
    while (index < length) {
        uint8_t byte = text[index];
        if (byte < 0x80) {
            const int upper = foldsCase && byte >= 'A' && byte <= 'Z';
            if (upper) *changes = 1;
            if (out != NULL) out[written] = upper ? (uint8_t)(byte + 32) : byte;
            written += 1;
            index += 1;
            continue;
        }
        size_t start = index;
        int32_t scalar = read_scalar(text, length, &index);
        if (scalar < 0) {
            // Not valid UTF-8: the byte as it is.
            if (out != NULL) out[written] = byte;
            written += 1;
            index += 1;
            continue;
        }
        const uint32_t *run;
        size_t count;
        if ((mode & ROSTER_FOLD_DIACRITICS) && is_hangul((uint32_t)scalar)) {
            // Unicode's chapter 3.12: a syllable is a leading consonant, a vowel and an
            // optional trailing consonant. None has case, so [cd] is [d] here.
            uint32_t offset = (uint32_t)scalar - HANGUL_FIRST;
            *changes = 1;
            emit(0x1100 + offset / 588, out, &written);
            emit(0x1161 + (offset % 588) / 28, out, &written);
            if (offset % 28 != 0) emit(0x11A7 + offset % 28, out, &written);
        } else if (lookup((uint32_t)scalar, mode, &run, &count)) {
            *changes = 1;
            for (size_t k = 0; k < count; k++) emit(run[k], out, &written);
        } else {
            if (out != NULL) memcpy(out + written, text + start, index - start);
            written += index - start;
        }
    }
    return written;
}

size_t roster_fold_measure(const uint8_t *text, size_t length, int mode, int *changes) {
    return fold_pass(text, length, mode, NULL, changes);
}

size_t roster_fold(const uint8_t *text, size_t length, int mode, uint8_t *out) {
    int changes;
    return fold_pass(text, length, mode, out, &changes);
}

const char *roster_fold_unicode_version(void) { return ROSTER_FOLDING_UNICODE_VERSION; }

static void fold_function(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    int mode = sqlite3_value_int(argv[1]);
    int type = sqlite3_value_type(argv[0]);
    if ((type != SQLITE_TEXT && type != SQLITE_BLOB) || mode < 1 || mode > 3) {
        sqlite3_result_value(context, argv[0]);
        return;
    }
    // A BLOB's bytes as they are; text as UTF-8 (the store's encoding, so no conversion).
    const uint8_t *text = type == SQLITE_BLOB ? sqlite3_value_blob(argv[0]) : sqlite3_value_text(argv[0]);
    int length = sqlite3_value_bytes(argv[0]);
    if (text == NULL && length > 0) {
        // Reading the value failed: out of memory.
        sqlite3_result_error_nomem(context);
        return;
    }
    int changes = 0;
    size_t folded = length > 0 ? roster_fold_measure(text, (size_t)length, mode, &changes) : 0;
    if (!changes) {
        if (type == SQLITE_TEXT) sqlite3_result_value(context, argv[0]);
        else sqlite3_result_text64(context, length > 0 ? (const char *)text : "", (sqlite3_uint64)length, SQLITE_TRANSIENT, SQLITE_UTF8);
        return;
    }
    if (folded > (size_t)sqlite3_limit(sqlite3_context_db_handle(context), SQLITE_LIMIT_LENGTH, -1)) {
        sqlite3_result_error_toobig(context);
        return;
    }
    if (folded == 0) {
        // Only marks that [d] drops: the empty text (sqlite3_malloc64(0) gives NULL).
        sqlite3_result_text64(context, "", 0, SQLITE_STATIC, SQLITE_UTF8);
        return;
    }
    uint8_t *out = sqlite3_malloc64(folded);
    if (out == NULL) {
        sqlite3_result_error_nomem(context);
        return;
    }
    size_t written = roster_fold(text, (size_t)length, mode, out);
    sqlite3_result_text64(context, (const char *)out, written, sqlite3_free, SQLITE_UTF8);
}

int roster_fold_register(sqlite3 *db) {
    return sqlite3_create_function_v2(db, "roster_fold", 2,
                                      SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY,
                                      NULL, fold_function, NULL, NULL, NULL);
}
