/// The runtime's name of an enum value's case, as `print` shows it: the case's own name, even
/// when the type describes itself otherwise (`CustomStringConvertible`).
@_silgen_name("swift_EnumCaseName")
private func swiftEnumCaseName<T>(_ value: T) -> UnsafePointer<CChar>?

/// The case name of `value` when it is an enum; `nil` otherwise, or when the runtime has no
/// name for it (stripped metadata).
func enumCaseName(_ value: Any) -> String? {
  func open<T>(_ opened: T) -> String? {
    swiftEnumCaseName(opened).map { String(cString: $0) }
  }
  return _openExistential(value, do: open)
}
