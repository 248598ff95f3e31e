package bench

import (
	"testing"
	"time"
)

func TestOf(t *testing.T) {
	ms := time.Millisecond
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(100-i) * ms // unsorted on purpose
	}
	tests := []struct {
		name    string
		samples []time.Duration
		unit    time.Duration
		want    Latency
	}{
		{"none", nil, ms, Latency{}},
		{"one", []time.Duration{5 * ms}, ms, Latency{5, 5, 5}},
		{"three", []time.Duration{3 * ms, 1 * ms, 2 * ms}, ms, Latency{2, 3, 3}},
		{"hundred", hundred, ms, Latency{50, 95, 99}},
		{"microseconds", []time.Duration{1500 * time.Nanosecond}, time.Microsecond, Latency{1.5, 1.5, 1.5}},
		{"rounded", []time.Duration{1234567 * time.Nanosecond}, ms, Latency{1.23, 1.23, 1.23}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Of(tt.samples, tt.unit); got != tt.want {
				t.Errorf("Of = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestThisMachine(t *testing.T) {
	m := ThisMachine()
	if m.Cores < 1 || m.MemoryMiB <= 0 {
		t.Errorf("ThisMachine = %+v: want cores and memory", m)
	}
}
