// Package percentile is the one way Parley reads a percentile of
// measured latencies: the load tool's reports and the console's charts
// say the same thing by the same word.
package percentile

import (
	"math"
	"time"
)

// Nearest is the nearest-rank p-th percentile of sorted (ascending): the
// smallest value at least p percent of the values are at or below. It
// never interpolates, so it is always a latency that was measured; none
// is 0.
func Nearest(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// Counted is a value seen N times: one bar of a histogram.
type Counted struct {
	Value time.Duration
	N     int
}

// NearestCounted is Nearest over the values sorted (ascending by Value)
// holds N times each, without spelling them out.
func NearestCounted(sorted []Counted, p float64) time.Duration {
	total := 0
	for _, c := range sorted {
		total += max(c.N, 0)
	}
	if total == 0 {
		return 0
	}
	rank := min(max(int(math.Ceil(p/100*float64(total))), 1), total)
	for _, c := range sorted {
		if rank -= max(c.N, 0); rank <= 0 {
			return c.Value
		}
	}
	return sorted[len(sorted)-1].Value // not reached: the ranks add up to total
}
