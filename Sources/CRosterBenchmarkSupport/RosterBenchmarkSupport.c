#include "RosterBenchmarkSupport.h"

#include <stdint.h>
#include <stdlib.h>  // defines __GLIBC__ where it is glibc

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>

size_t roster_bench_heap_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
#else
size_t roster_bench_heap_bytes_in_use(void) {
    return 0;
}
#endif

// sqlite3.h declares the preupdate interfaces only when this is defined.
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>

static void floor_hook(void *context, sqlite3 *db, int op, const char *database, const char *name,
                       sqlite3_int64 oldRowid, sqlite3_int64 newRowid) {
    (void)database;
    (void)name;
    (void)oldRowid;
    (void)newRowid;
    int column = (int)(intptr_t)context;
    sqlite3_value *value = NULL;
    switch (op) {
    case SQLITE_INSERT:
        sqlite3_preupdate_new(db, 0, &value);
        break;
    case SQLITE_UPDATE:
        sqlite3_preupdate_old(db, column, &value);
        sqlite3_preupdate_new(db, column, &value);
        break;
    default:
        sqlite3_preupdate_old(db, 0, &value);
        break;
    }
}

int roster_bench_set_floor_hook(sqlite3 *db, int column) {
    if (!sqlite3_compileoption_used("ENABLE_PREUPDATE_HOOK")) return 0;
    if (column < 0) {
        sqlite3_preupdate_hook(db, NULL, NULL);
    } else {
        sqlite3_preupdate_hook(db, floor_hook, (void *)(intptr_t)column);
    }
    return 1;
}
