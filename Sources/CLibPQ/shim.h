// libpq, PostgreSQL's own client library: the PostgreSQL backend's connections
// (Docs/ScaleOut.md says why libpq rather than postgres-nio). Built with the PostgreSQL
// trait only. Debian's libpq-dev puts the header in /usr/include/postgresql; elsewhere
// (Homebrew's keg-only libpq) pass its folder: -Xcc -I$(brew --prefix libpq)/include.
#if __has_include(<postgresql/libpq-fe.h>)
#include <postgresql/libpq-fe.h>
#else
#include <libpq-fe.h>
#endif
