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
