// libpq, PostgreSQL's own client library (Debian's libpq-dev): the PostgreSQL backend's
// connections (Docs/ScaleOut.md says why libpq rather than postgres-nio).
#include <libpq-fe.h>
