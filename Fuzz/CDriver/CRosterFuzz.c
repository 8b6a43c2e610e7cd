// Declarations only (see include/CRosterFuzz.h); SwiftPM needs one source file per C target.
#include "CRosterFuzz.h"
