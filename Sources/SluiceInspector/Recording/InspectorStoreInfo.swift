import Sluice

/// A store the inspector knows: its id in the protocol, its name, and the inspected store.
struct InspectorStoreInfo: Sendable {
  /// `s1`, `s2`, … in the order the inspector met the stores.
  let id: String
  /// The state type's name.
  let name: String
  let store: InspectedStore
}
