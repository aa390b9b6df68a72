package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// latencyStats summarises answer latencies.
type latencyStats struct {
	P50, P90, P99, Max, Mean time.Duration
}

func summarise(ds []time.Duration) latencyStats {
	if len(ds) == 0 {
		return latencyStats{}
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	var sum time.Duration
	for _, d := range sorted {
		sum += d
	}
	return latencyStats{
		P50:  percentile(sorted, 50),
		P90:  percentile(sorted, 90),
		P99:  percentile(sorted, 99),
		Max:  sorted[len(sorted)-1],
		Mean: sum / time.Duration(len(sorted)),
	}
}

// percentile is the nearest-rank p-th percentile of sorted: the smallest
// value at least p percent of the values are at or below. It never
// interpolates, so it is always a latency that was measured.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// memory is a process's resident set, in bytes.
type memory struct {
	Peak    int64 // VmHWM: the high-water mark
	Current int64 // VmRSS
}

var errNoMemory = errors.New("no VmHWM/VmRSS in status")

// parseStatus reads VmHWM and VmRSS from a /proc/<pid>/status.
func parseStatus(r io.Reader) (memory, error) {
	var m memory
	var seen int
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmHWM" && key != "VmRSS") {
			continue
		}
		fields := strings.Fields(val)
		if len(fields) != 2 || fields[1] != "kB" {
			return memory{}, fmt.Errorf("%s: unexpected value %q", key, val)
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return memory{}, fmt.Errorf("%s: %w", key, err)
		}
		if key == "VmHWM" {
			m.Peak = kb * 1024
		} else {
			m.Current = kb * 1024
		}
		seen++
	}
	if err := sc.Err(); err != nil {
		return memory{}, err
	}
	if seen != 2 {
		return memory{}, errNoMemory
	}
	return m, nil
}

func readMemory(pid int) (memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, err
	}
	defer f.Close()
	return parseStatus(f)
}

// memorySampler keeps the latest reading of a process's memory, so the
// figures survive the process dying mid-run.
type memorySampler struct {
	pid  int
	mu   sync.Mutex
	last memory
	ok   bool  // last holds a reading
	err  error // why there is none yet
}

// update reads the memory now.
func (s *memorySampler) update() {
	m, err := readMemory(s.pid)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err == nil:
		s.last, s.ok = m, true
	case !s.ok:
		s.err = err
	}
}

// latest is the latest good reading.
func (s *memorySampler) latest() (memory, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ok {
		return memory{}, s.err
	}
	return s.last, nil
}

// run updates every interval until ctx ends.
func (s *memorySampler) run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		s.update()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// fileSize is the size of path, 0 when it does not exist.
func fileSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
