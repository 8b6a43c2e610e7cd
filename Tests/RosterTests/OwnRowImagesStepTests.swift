import Testing
@testable import Roster

/// Reading the store's row images in step with its batches (``OwnRowImages/StepReader``):
/// each batch entry takes the image at the same place, and anything that does not line up
/// puts the reader out of step for good.
@Suite("Own row images read in step")
struct OwnRowImagesStepTests {
    static let item = try! Entity("Item", key: "id", attributes: [Attribute("id", .string), Attribute("rank", .integer)])

    /// An image of `key` with its row now (`rank`), or with no row (nil).
    static func image(_ key: Character, rank: Int64?) -> [UInt8] {
        let text: [UInt8] = [3, 1, UInt8(key.asciiValue!)]
        guard let rank else { return [0] + text }
        return [1] + text + text + [1, UInt8(truncatingIfNeeded: (rank << 1) ^ (rank >> 63))]
    }

    /// A batch of images: the header (version 1, two columns), then the entries.
    static func images(_ entries: [UInt8]...) -> [UInt8] { [1, 2] + entries.flatMap { $0 } }

    static func store(_ images: [(entries: [Int64], bytes: [UInt8])]) -> OwnRowImages {
        let store = OwnRowImages()
        store.add(images.map { OwnRowImages.Images(entity: "Item", entries: $0.entries, bytes: $0.bytes) })
        return store
    }

    @Test func eachEntryTakesTheImageAtItsPlaceAcrossBatchesAndTransactions() {
        // One transaction wrote entries 10 and 11 (two batches), another entry 12.
        let store = Self.store([
            ([10, 11], Self.images(Self.image("a", rank: 5), Self.image("b", rank: nil), Self.image("a", rank: 6))),
            ([12], Self.images(Self.image("c", rank: 1))),
        ])
        var reader = OwnRowImages.StepReader(store, entity: Self.item)
        reader.beginBatch(10)
        #expect(reader.rowNow(forKey: "a") == .some(["a", 5]))
        #expect(reader.rowNow(forKey: "b") == .some(nil))
        reader.beginBatch(11)
        #expect(reader.rowNow(forKey: "a") == .some(["a", 6]))
        reader.beginBatch(12)
        #expect(reader.rowNow(forKey: "c") == .some(["c", 1]))
        #expect(reader.gaveEveryRow)
    }

    @Test func whatDoesNotLineUpPutsTheReaderOutOfStepForGood() {
        let bytes = Self.images(Self.image("a", rank: 5), Self.image("b", rank: 2))
        // Another key at the entry's place.
        var reader = OwnRowImages.StepReader(Self.store([([10], bytes)]), entity: Self.item)
        reader.beginBatch(10)
        #expect(reader.rowNow(forKey: "b") == nil)
        #expect(reader.rowNow(forKey: "b") == nil, "out of step stays out of step")
        #expect(!reader.gaveEveryRow)
        // A batch without images (another program's, a transaction that kept none).
        reader = OwnRowImages.StepReader(Self.store([([10], bytes)]), entity: Self.item)
        reader.beginBatch(9)
        #expect(reader.rowNow(forKey: "a") == nil)
        #expect(!reader.gaveEveryRow)
        // Images left over when the next transaction starts, or at the end.
        let both = Self.store([([10], bytes), ([11], Self.images(Self.image("c", rank: 1)))])
        reader = OwnRowImages.StepReader(both, entity: Self.item)
        reader.beginBatch(10)
        #expect(reader.rowNow(forKey: "a") == .some(["a", 5]))
        reader.beginBatch(11)
        #expect(reader.rowNow(forKey: "c") == nil)
        reader = OwnRowImages.StepReader(both, entity: Self.item)
        reader.beginBatch(10)
        _ = reader.rowNow(forKey: "a")
        #expect(!reader.gaveEveryRow, "b's image was never taken")
        // More entries than images, a transaction entered in the middle, another entity.
        reader = OwnRowImages.StepReader(Self.store([([10], Self.images(Self.image("a", rank: 5)))]), entity: Self.item)
        reader.beginBatch(10)
        _ = reader.rowNow(forKey: "a")
        #expect(reader.rowNow(forKey: "b") == nil)
        reader = OwnRowImages.StepReader(Self.store([([10, 11], bytes)]), entity: Self.item)
        reader.beginBatch(11)
        #expect(reader.rowNow(forKey: "a") == nil)
        let other = try! Entity("Other", key: "id", attributes: [Attribute("id", .string), Attribute("rank", .integer)])
        reader = OwnRowImages.StepReader(Self.store([([10], bytes)]), entity: other)
        reader.beginBatch(10)
        #expect(reader.rowNow(forKey: "a") == nil)
        // Bytes that are not images.
        reader = OwnRowImages.StepReader(Self.store([([10], [1, 2, 9, 9])]), entity: Self.item)
        reader.beginBatch(10)
        #expect(reader.rowNow(forKey: "a") == nil)
        #expect(!reader.gaveEveryRow)
    }
}
