#ifndef ROSTER_BENCHMARK_SUPPORT_H
#define ROSTER_BENCHMARK_SUPPORT_H

#include <stddef.h>

/// Bytes the C allocator has handed out and not yet taken back: what the process's live
/// allocations hold, without the pages the allocator keeps for reuse. glibc's
/// `mallinfo2()` (`uordblks + hblkhd`, every arena); 0 where it is not available.
/// `malloc.h` is not in Swift's Glibc module, hence this file.
size_t roster_bench_heap_bytes_in_use(void);

typedef struct sqlite3 sqlite3;

/// Sets (`column` ≥ 0) or removes (`column` < 0) a preupdate hook on `db` that reads, for
/// each row a statement changes, the least any change capture must read and logs nothing:
/// an insert's new value of column 0 (the key), an update's old and new value of `column`
/// (to know whether it changed, and what it was), a delete's old value of column 0. The
/// `writes` scenario's floor for the store's own hook. Returns 0 when this SQLite has no
/// preupdate hook (`SQLITE_ENABLE_PREUPDATE_HOOK`), 1 otherwise.
int roster_bench_set_floor_hook(sqlite3 *db, int column);

#endif
