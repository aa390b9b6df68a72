package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// initProbeEnv makes this test binary, run again by TestInitFootprint,
// report what package initialisation allocated and exit.
const initProbeEnv = "PARLEY_INIT_PROBE"

// initBudget bounds what Parley's own packages may allocate while the
// program initialises (17 KiB when this was written, from 2.7 MiB for all
// packages; docs/footprint.md). What a package needs only when a feature
// is used is built on first use (internal/lazyre, sync.OnceValue).
const initBudget = 32 << 10

// carriedBudget bounds each package of the modules Parley carries patched
// (third_party/README.md): their tables were 80–260 KiB a package before
// the patch, their ordinary initialisation is under 18 KiB.
const carriedBudget = 32 << 10

// TestInitFootprint runs this test binary again with every allocation
// recorded (GODEBUG=memprofilerate=1) and checks that the initialisation
// of Parley's own packages and of those it carries patched compiles no
// regular expression, Parley's stays within initBudget and each carried
// one within carriedBudget. Other third-party packages and test helpers
// are not counted.
func TestInitFootprint(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), initProbeEnv+"=1", "GODEBUG=memprofilerate=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("probe: %v\n%s", err, out)
	}
	total, carried := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		pkg, n, _ := strings.Cut(rest, " ")
		size, _ := strconv.Atoi(n)
		switch {
		case kind == "regexp":
			t.Errorf("package %s compiles a regular expression at init (%d bytes); compile it on first use (internal/lazyre)", pkg, size)
		case kind == "alloc" && inPattern(pkg, ownInit[0]):
			t.Logf("%s: %d bytes at init", pkg, size)
			total += size
		case kind == "alloc":
			t.Logf("%s (carried): %d bytes at init", pkg, size)
			carried++
			if size > carriedBudget {
				t.Errorf("carried package %s allocates %d bytes at init, more than the budget of %d: did an update bring a table back? (third_party/README.md)", pkg, size, carriedBudget)
			}
		}
	}
	if total == 0 || carried == 0 {
		t.Fatalf("the probe saw no allocation of Parley's (%d bytes) or of a carried package (%d):\n%s", total, carried, out)
	}
	if total > initBudget {
		t.Errorf("Parley's packages allocate %d bytes at init, more than the budget of %d", total, initBudget)
	}
}

// probeInit writes, for each of Parley's packages, what its
// initialisation allocated ("alloc <pkg> <bytes>") and what of it was
// compiling regular expressions ("regexp <pkg> <bytes>").
func probeInit() {
	// A record shows in the profile once a collection has finished after
	// it.
	runtime.GC()
	runtime.GC()
	n, _ := runtime.MemProfile(nil, true)
	records := make([]runtime.MemProfileRecord, n+64)
	n, _ = runtime.MemProfile(records, true)
	alloc, re := map[string]int64{}, map[string]int64{}
	for _, r := range records[:n] {
		pkg, compiles := initSite(r.Stack())
		if pkg == "" {
			continue
		}
		alloc[pkg] += r.AllocBytes
		if compiles {
			re[pkg] += r.AllocBytes
		}
	}
	for pkg, b := range alloc {
		fmt.Printf("alloc %s %d\n", pkg, b)
	}
	for pkg, b := range re {
		fmt.Printf("regexp %s %d\n", pkg, b)
	}
}

// ownInit are the packages whose initialisation is checked, as go list
// patterns: Parley's (first) and those of the modules it carries patched.
// Of client_golang only the patched package is: its collectors package
// keeps the regular expressions it exports.
var ownInit = []string{
	"github.com/parleybot/parley/...",
	"github.com/ledongthuc/pdf/...",
	"codeberg.org/readeck/go-readability/...",
	"github.com/yuin/goldmark/...",
	"github.com/prometheus/client_golang/prometheus",
}

// inPattern reports whether the package pkg matches pattern, an import
// path that ends in "/..." to include the packages below it.
func inPattern(pkg, pattern string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

// initSite finds the package of ownInit whose initialisation made an
// allocation with this stack, "" for none, and whether the allocation was
// compiling a regular expression.
func initSite(stack []uintptr) (pkg string, compiles bool) {
	frames := runtime.CallersFrames(stack)
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "regexp.") {
			compiles = compiles || strings.Contains(f.Function, "ompile")
		}
		// Package initialisation is <pkg>.init, <pkg>.init.N or, for
		// map literals, <pkg>.map.init.N.
		if p, _, ok := strings.Cut(f.Function, ".init"); ok && slices.ContainsFunc(ownInit, func(own string) bool { return inPattern(strings.TrimSuffix(p, ".map"), own) }) {
			p = strings.TrimSuffix(p, ".map")
			if strings.HasSuffix(f.File, "_test.go") || strings.HasSuffix(p, "test") {
				return "", false // tests and fakes are not in the binary
			}
			return p, compiles
		}
		if !more {
			return "", false
		}
	}
}
