package bench

import (
	"math"
	"slices"
	"time"
)

// Latency is a distribution summarized as three percentiles, in the unit the key that
// holds it names (µs or ms).
type Latency struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

// Of summarizes samples in units of unit (time.Microsecond, time.Millisecond), rounded to
// 0.01 of the unit; no samples give the zero Latency.
func Of(samples []time.Duration, unit time.Duration) Latency {
	p := Percentiles(samples)
	us := float64(unit) / float64(time.Microsecond)
	return Latency{P50: Round2(p[0] / us), P95: Round2(p[1] / us), P99: Round2(p[2] / us)}
}

// Percentiles returns p50, p95 and p99 of samples in microseconds (unrounded), the form the
// Go benchmarks report with b.ReportMetric. Each is the nearest rank: the smallest sample
// with at least that share of the samples at or below it (with 3 samples, p50 is the
// middle one and p95 the largest).
func Percentiles(samples []time.Duration) []float64 {
	if len(samples) == 0 {
		return []float64{0, 0, 0}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	out := make([]float64, 0, 3)
	for _, p := range []float64{0.50, 0.95, 0.99} {
		i := max(int(math.Ceil(p*float64(len(s))))-1, 0)
		out = append(out, float64(s[i].Nanoseconds())/1e3)
	}
	return out
}

// Round2 rounds v to two decimals, as every figure of a report is.
func Round2(v float64) float64 { return math.Round(v*100) / 100 }
