package main

import (
	"log"
	"os"
	"strconv"
	"strings"
	"time"
)

// The machine is shared: these read how much CPU everything else used, so
// a figure taken while other work was running can be told apart.

const userHZ = 100 // clock ticks per second in /proc (USER_HZ)

// busyTicks is the CPU time all processes have used, in ticks.
func busyTicks() int64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	var n int64
	for i, v := range f[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		if i >= 8 { // guest time is already in user
			break
		}
		x, _ := strconv.ParseInt(v, 10, 64)
		n += x
	}
	return n
}

// selfTicks is the CPU time this process has used, in ticks.
func selfTicks() int64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from 3 (state) on
	u, _ := strconv.ParseInt(f[11], 10, 64)                  // 14 utime
	k, _ := strconv.ParseInt(f[12], 10, 64)                  // 15 stime
	return u + k
}

// cpuMeter measures the cores used by other processes over an interval.
type cpuMeter struct {
	t          time.Time
	busy, self int64
}

func startCPU() cpuMeter { return cpuMeter{time.Now(), busyTicks(), selfTicks()} }

// others is the average number of cores other processes used since m.
func (m cpuMeter) others() float64 {
	secs := time.Since(m.t).Seconds()
	if secs <= 0 {
		return 0
	}
	other := float64((busyTicks()-m.busy)-(selfTicks()-m.self)) / userHZ
	return max(other/secs, 0)
}

// waitQuiet waits, up to limit, until other processes use less than
// threshold cores over a 3-second sample.
func waitQuiet(threshold float64, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for {
		m := startCPU()
		time.Sleep(3 * time.Second)
		o := m.others()
		if o < threshold {
			return
		}
		if time.Now().After(deadline) {
			log.Printf("   machine still busy (%.2f cores used by others); measuring anyway", o)
			return
		}
		log.Printf("   waiting: %.2f cores used by others", o)
		time.Sleep(7 * time.Second)
	}
}
