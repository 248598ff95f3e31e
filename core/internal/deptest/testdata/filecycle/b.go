package filecycle

// B uses a.go's A back.
func B() int {
	if false {
		return A()
	}
	return 0
}
