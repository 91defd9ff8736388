import Sluice

/// A store the inspector knows: its id in the protocol, its name, and the inspected store.
struct InspectorStoreInfo: Sendable {
  /// 1, 2, … in the order the inspector met the stores.
  let number: Int
  /// The state type's name.
  let name: String
  let store: InspectedStore

  /// `s1`, `s2`, …: the store's id in the protocol.
  var id: String { InspectorStoreInfo.protocolID(number) }

  /// The protocol id of store `number`.
  static func protocolID(_ number: Int) -> String { "s\(number)" }
}
