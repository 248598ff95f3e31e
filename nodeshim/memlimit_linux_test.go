package nodeshim

import (
	"os"
	"testing"
)

func TestDataSize(t *testing.T) {
	if d := dataSize(os.Getpid()); d == 0 {
		t.Fatal("the test's own data segment reads as 0")
	}
	if d := dataSize(-1); d != 0 {
		t.Fatalf("no process: %d", d)
	}
}
