#ifndef ROSTER_BENCHMARK_SUPPORT_H
#define ROSTER_BENCHMARK_SUPPORT_H

#include <stddef.h>

/// Bytes the C allocator has handed out and not yet taken back: what the process's live
/// allocations hold, without the pages the allocator keeps for reuse. glibc's
/// `mallinfo2()` (`uordblks + hblkhd`, every arena); 0 where it is not available.
/// `malloc.h` is not in Swift's Glibc module, hence this file.
size_t roster_bench_heap_bytes_in_use(void);

#endif
