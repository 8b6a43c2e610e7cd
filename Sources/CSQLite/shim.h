#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro that casts -1 to a function pointer, which Swift cannot
// import; this constant gives Swift the same value.
static const sqlite3_destructor_type csqlite_transient = (sqlite3_destructor_type)-1;
