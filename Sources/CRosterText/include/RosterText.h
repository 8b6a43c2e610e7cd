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

/// The exact number of bytes that folding `length` bytes of text writes, and in
/// `*changes` whether the folded text differs from the text (0 when it is the text
/// itself, which then need not be folded at all).
size_t roster_fold_measure(const uint8_t *text, size_t length, int mode, int *changes);

/// Folds `length` bytes of text into `out`, which has room for the bytes
/// roster_fold_measure gives, and returns the bytes written.
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
/// that folds text as roster_fold does (mode 1, 2 or 3), reads a BLOB's bytes as text (as
/// Roster reads a BLOB in a string column) and returns numbers and NULL unchanged. A folded
/// text longer than SQLite's length limit (SQLITE_LIMIT_LENGTH) is an error, "string or
/// blob too big". It is SQLITE_DIRECTONLY: a schema (a view, a trigger, an index) cannot
/// use it, so that no file needs Roster to be read. Returns SQLite's result code.
int roster_fold_register(sqlite3 *db);

#endif
