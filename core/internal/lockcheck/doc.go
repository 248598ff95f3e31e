// Package lockcheck checks the lock discipline that the code states in annotations.
//
// The annotations are gVisor's checklocks syntax:
//
//	type conn struct {
//		mu sync.Mutex
//		// +checklocks:mu
//		pending map[uint64]chan reply // guarded by the sibling field mu
//	}
//
//	// +checklocks:c.mu
//	func (c *conn) dropLocked(id uint64) { delete(c.pending, id) } // c.mu held on entry
//
// [Analyzers] returns the two analyzers cmd/lockcheck runs over the module:
//
//   - gVisor's checklocks, which follows each function's control flow and reports an access
//     to an annotated field on a path where its mutex is not held (read access accepts an
//     RLock), a call to an annotated function without the lock it requires, and an
//     annotation that names no mutex. Lock inference is off: a field without an annotation
//     is never checked, so an unannotated package produces no findings.
//   - [LockedNames], which reports a function or method named …Locked whose doc comment does
//     not say, with +checklocks: or +checklocksread:, which lock it expects held.
//
// A function that touches a guarded field while it still owns the value alone (a
// constructor filling a struct before publishing it) says so with // +checklocksignore.
package lockcheck
