package filecycle

// C only uses what is above it.
func C() int { return A() }
