package lazyre

import "testing"

func TestNew(t *testing.T) {
	re := New(`^[a-z]{0,3}$`)
	first := re()
	if second := re(); first != second {
		t.Fatal("a second call compiled the pattern again")
	}
	for s, want := range map[string]bool{"": true, "abc": true, "abcd": false, "A": false} {
		if got := re().MatchString(s); got != want {
			t.Errorf("MatchString(%q) = %v; want %v", s, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a bad pattern did not panic on first use")
		}
	}()
	bad := New(`(`) // no panic yet
	bad()
}
