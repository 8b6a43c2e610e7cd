#ifndef CROSTERFUZZ_H
#define CROSTERFUZZ_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, LLVM 12 and later): runs the fuzzing loop with
/// `callback` as the target. It is only linked in a build with `-sanitize=fuzzer`; the
/// fuzz targets call it only when compiled with `-DROSTER_FUZZING`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
