/// A ``Loadable`` seen without its value type, as tools that write it back as Swift need it
/// (the inspector's record → test): its status, the value it keeps, and whether it has
/// metadata. Its stored properties are private, so reflection alone cannot rebuild one.
package protocol LoadableReflecting {
  /// The status, its loaded value or error included.
  var reflectedStatus: LoadableReflectedStatus { get }
  /// The value kept from an earlier load while reloading or after a failure.
  var reflectedKept: Any? { get }
  /// Whether the loadable's metadata holds anything.
  var hasMetadata: Bool { get }
}

/// A ``Loadable``'s status without its value type.
package enum LoadableReflectedStatus {
  case idle
  case loading
  case loaded(Any)
  case failed(LoadError)
}

extension Loadable: LoadableReflecting {
  package var reflectedStatus: LoadableReflectedStatus {
    switch status {
    case .idle: .idle
    case .loading: .loading
    case .loaded(let value): .loaded(value)
    case .failed(let error): .failed(error)
    }
  }

  package var reflectedKept: Any? { kept.map { $0 as Any } }

  package var hasMetadata: Bool { !metadata.isEmpty }
}
