package owners

import (
	"testing"
	"time"
)

func TestLogLimiter(t *testing.T) {
	now := time.Unix(0, 0)
	l := newLogLimiter(func() time.Time { return now })
	passed := 0
	for range logBurst + 5 {
		if ok, _ := l.allow("p"); ok {
			passed++
		}
	}
	if passed != logBurst {
		t.Fatalf("burst let %d through, want %d", passed, logBurst)
	}
	if ok, _ := l.allow("other"); !ok {
		t.Fatal("one plugin's flood limited another")
	}
	now = now.Add(logEvery)
	ok, dropped := l.allow("p")
	if !ok || dropped != 5 {
		t.Fatalf("after one interval: %t, dropped %d (want 5)", ok, dropped)
	}
	if ok, _ := l.allow("p"); ok {
		t.Fatal("more than one line per interval")
	}
}
