// Sinks the optimizer cannot see through, so measured work is never deleted or hoisted.

/// Accumulates every value a benchmark consumes; written only by the benchmark thread (observers
/// run synchronously on the lane, which is the dispatching thread here).
nonisolated(unsafe) var consumedTotal = 0

/// How many times ``consume(_:)`` ran; the fixtures use it to check that the expected number of
/// observers fire per action.
nonisolated(unsafe) var consumeCalls = 0

/// Uses `value`: a real side effect on a global, behind a call the optimizer may not inline.
@inline(never)
func consume(_ value: Int) {
  consumedTotal &+= value
  consumeCalls &+= 1
}

/// Returns `value` unchanged, hiding where it came from: a closure passed through here cannot be
/// inlined, specialized or constant-folded at the call site.
@inline(never) @_optimize(none)
func opaque<T>(_ value: T) -> T { value }

/// Keeps an object alive somewhere the optimizer cannot see (used by the allocation self-test so
/// the probe objects are really heap-allocated).
nonisolated(unsafe) private var escapedObject: AnyObject?

@inline(never)
func escape(_ object: AnyObject) {
  escapedObject = object
}
