import CRosterBenchmarkSupport
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's resident memory, as the kernel counts it.
enum ResidentMemory {
    /// Resident bytes: the second field of `/proc/self/statm` (pages) times the page size;
    /// nil where there is no `/proc` (not Linux).
    static func bytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// The bytes live allocations hold, as the C allocator counts them: unlike the resident
/// size, not the freed memory it keeps for reuse (a grown array's earlier buffers, a
/// fetch's temporaries), so it says what a structure itself holds.
enum HeapMemory {
    /// Bytes allocated and not freed; nil where the allocator cannot say (not glibc).
    static func bytesInUse() -> Int? {
        let bytes = roster_bench_heap_bytes_in_use()
        return bytes == 0 ? nil : Int(bytes)
    }
}
