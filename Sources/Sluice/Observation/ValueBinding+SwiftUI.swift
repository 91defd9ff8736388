#if canImport(SwiftUI)
  import SwiftUI

  extension Binding where Value: Sendable {
    /// A SwiftUI binding that reads and sets through `binding`, a binding made by
    /// ``StoreModel/binding(_:to:)``:
    ///
    /// ```swift
    /// TextField("Search", text: Binding(model.binding(\.query, to: SearchAction.queryChanged)))
    /// ```
    ///
    /// SwiftUI reads and sets a binding on the main actor, where the model lives.
    ///
    /// - Parameter binding: The getter and setter of a value of a model.
    @MainActor
    public init(_ binding: ValueBinding<Value>) {
      self.init(
        get: { MainActor.assumeIsolated { binding.get() } },
        set: { newValue in MainActor.assumeIsolated { binding.set(newValue) } })
    }
  }
#endif
