import NIOCore
import Synchronization

/// One value for each event loop, made on its first use: state that only the loop's own
/// sockets touch, so that no two cores take turns with its cache lines or its lock.
final class PerEventLoop<Value: Sendable>: Sendable {
    private let values = Mutex<[ObjectIdentifier: Value]>([:])
    private let make: @Sendable (any EventLoop) -> Value

    init(_ make: @escaping @Sendable (any EventLoop) -> Value) {
        self.make = make
    }

    /// `loop`'s value; looked up once per connection, not per message.
    func value(for loop: any EventLoop) -> Value {
        values.withLock { values in
            if let value = values[ObjectIdentifier(loop)] { return value }
            let value = make(loop)
            values[ObjectIdentifier(loop)] = value
            return value
        }
    }
}
