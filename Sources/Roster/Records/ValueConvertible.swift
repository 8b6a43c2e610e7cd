import Foundation

/// A Swift value that has a stored form: what typed queries and keys take.
public protocol ValueConvertible: Sendable {
    /// The value as stored.
    var value: Value { get }
}

extension Value: ValueConvertible {
    public var value: Value { self }
}
extension String: ValueConvertible {
    public var value: Value { .string(self) }
}
extension Bool: ValueConvertible {
    public var value: Value { .bool(self) }
}
extension Double: ValueConvertible {
    public var value: Value { .double(self) }
}
extension Float: ValueConvertible {
    public var value: Value { .double(Double(self)) }
}
extension Int: ValueConvertible {
    public var value: Value { .integer(Int64(self)) }
}
extension Int64: ValueConvertible {
    public var value: Value { .integer(self) }
}
extension Int32: ValueConvertible {
    public var value: Value { .integer(Int64(self)) }
}
extension Date: ValueConvertible {
    /// Seconds since 1970, as records store dates.
    public var value: Value { .double(timeIntervalSince1970) }
}
extension UUID: ValueConvertible {
    public var value: Value { .string(uuidString) }
}
extension URL: ValueConvertible {
    public var value: Value { .string(absoluteString) }
}
extension Optional: ValueConvertible where Wrapped: ValueConvertible {
    public var value: Value { self?.value ?? .null }
}
