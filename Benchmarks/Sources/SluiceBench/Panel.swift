import Sluice

/// 1,000 distinct `Int`s in a tree of stored properties (10 rows × 10 leaves × 10 values):
/// the shape of most key-path observers (`\.settings.display.scale`), every path stored.
struct Panel: Equatable, Sendable {
  var r0: PanelRow
  var r1: PanelRow
  var r2: PanelRow
  var r3: PanelRow
  var r4: PanelRow
  var r5: PanelRow
  var r6: PanelRow
  var r7: PanelRow
  var r8: PanelRow
  var r9: PanelRow

  init() {
    r0 = PanelRow()
    r1 = PanelRow()
    r2 = PanelRow()
    r3 = PanelRow()
    r4 = PanelRow()
    r5 = PanelRow()
    r6 = PanelRow()
    r7 = PanelRow()
    r8 = PanelRow()
    r9 = PanelRow()
  }

  /// The 1,000 leaf paths, `\.r0.l0.v0` … `\.r9.l9.v9`.
  static let leafPaths: [WritableKeyPath<Panel, Int> & Sendable] = {
    let rows: [WritableKeyPath<Panel, PanelRow>] = [
      \Panel.r0, \Panel.r1, \Panel.r2, \Panel.r3, \Panel.r4, \Panel.r5, \Panel.r6, \Panel.r7,
      \Panel.r8, \Panel.r9,
    ]
    let leaves: [WritableKeyPath<PanelRow, PanelLeaf>] = [
      \PanelRow.l0, \PanelRow.l1, \PanelRow.l2, \PanelRow.l3, \PanelRow.l4, \PanelRow.l5,
      \PanelRow.l6, \PanelRow.l7, \PanelRow.l8, \PanelRow.l9,
    ]
    let values: [WritableKeyPath<PanelLeaf, Int>] = [
      \PanelLeaf.v0, \PanelLeaf.v1, \PanelLeaf.v2, \PanelLeaf.v3, \PanelLeaf.v4, \PanelLeaf.v5,
      \PanelLeaf.v6, \PanelLeaf.v7, \PanelLeaf.v8, \PanelLeaf.v9,
    ]
    var all: [WritableKeyPath<Panel, Int> & Sendable] = []
    for row in rows {
      for leaf in leaves {
        for value in values {
          // Appending stored-property paths gives a path of stored properties.
          all.append(unsafeSendable(row.appending(path: leaf).appending(path: value)))
        }
      }
    }
    return all
  }()
}

struct PanelRow: Equatable, Sendable {
  var l0: PanelLeaf
  var l1: PanelLeaf
  var l2: PanelLeaf
  var l3: PanelLeaf
  var l4: PanelLeaf
  var l5: PanelLeaf
  var l6: PanelLeaf
  var l7: PanelLeaf
  var l8: PanelLeaf
  var l9: PanelLeaf

  init() {
    l0 = PanelLeaf()
    l1 = PanelLeaf()
    l2 = PanelLeaf()
    l3 = PanelLeaf()
    l4 = PanelLeaf()
    l5 = PanelLeaf()
    l6 = PanelLeaf()
    l7 = PanelLeaf()
    l8 = PanelLeaf()
    l9 = PanelLeaf()
  }
}

struct PanelLeaf: Equatable, Sendable {
  var v0: Int
  var v1: Int
  var v2: Int
  var v3: Int
  var v4: Int
  var v5: Int
  var v6: Int
  var v7: Int
  var v8: Int
  var v9: Int

  init() {
    v0 = 0
    v1 = 0
    v2 = 0
    v3 = 0
    v4 = 0
    v5 = 0
    v6 = 0
    v7 = 0
    v8 = 0
    v9 = 0
  }
}

/// Increments the leaf at `offset` bytes into the panel (the benchmark's reducer writes by
/// offset so that the reducer's own cost stays negligible).
struct BumpPanel: Action {
  let offset: Int
}

/// Key paths built by `appending` are not statically known to be `Sendable`; these are built
/// from `Sendable` literals only.
private func unsafeSendable<Root, Value>(
  _ path: WritableKeyPath<Root, Value>
) -> WritableKeyPath<Root, Value> & Sendable {
  unsafeBitCast(path, to: (WritableKeyPath<Root, Value> & Sendable).self)
}
