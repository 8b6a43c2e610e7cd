/// The 64-bit FNV-1a hash: stable across processes and runs (Swift's `Hasher` is seeded
/// per process), cheap on short inputs. For numbers that must agree between processes —
/// lock keys, a digest saved in a resume token — and for filters over raw bytes.
struct FNV1a {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    init() {}

    mutating func combine(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100_0000_01B3 }
    }

    mutating func combine<Bytes: Sequence<UInt8>>(contentsOf bytes: Bytes) {
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100_0000_01B3 }
    }

    mutating func combine(_ word: UInt64) {
        withUnsafeBytes(of: word.littleEndian) { combine($0) }
    }

    /// The hash of the bytes alone.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hasher = FNV1a()
        hasher.combine(bytes)
        return hasher.value
    }
}
