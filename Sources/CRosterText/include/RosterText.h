#ifndef ROSTER_TEXT_H
#define ROSTER_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

/// What a predicate's modifier folds: [c] is ROSTER_FOLD_CASE, [d] ROSTER_FOLD_DIACRITICS,
/// [cd] both.
enum {
    ROSTER_FOLD_CASE = 1,
    ROSTER_FOLD_DIACRITICS = 2,
};

/// The bytes that folding `length` bytes of text may take at the most, or 0 when that
/// number would not fit in a size_t.
size_t roster_fold_capacity(size_t length);

/// Whether folding the text changes it: 0 when the folded text is the text itself.
int roster_fold_changes(const uint8_t *text, size_t length, int mode);

/// Folds `length` bytes of text into `out`, which has room for
/// `roster_fold_capacity(length)` bytes, and returns the bytes written.
///
/// Each Unicode scalar that is valid UTF-8 becomes its folding (full case folding for
/// ROSTER_FOLD_CASE; canonical decomposition without nonspacing marks for
/// ROSTER_FOLD_DIACRITICS; both, case first); every byte that is not part of valid UTF-8
/// (a stray continuation byte, a truncated or overlong sequence, a surrogate) is copied
/// as it is, and so is NUL.
size_t roster_fold(const uint8_t *text, size_t length, int mode, uint8_t *out);

/// The Unicode version of the folding tables, "15.0.0".
const char *roster_fold_unicode_version(void);

/// Registers `roster_fold(value, mode)` on a connection: a deterministic SQL function
/// that folds text as roster_fold does (mode 1, 2 or 3) and returns every other value, and
/// NULL, unchanged. It is SQLITE_DIRECTONLY: a schema (a view, a trigger, an index) cannot
/// use it, so that no file needs Roster to be read. Returns SQLite's result code.
int roster_fold_register(sqlite3 *db);

#endif
