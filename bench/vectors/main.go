// Command vectors measures the ways Parley could search passage embeddings
// kept in its SQLite file (docs/kb-vectors.md has the method and figures):
//
//	A   a Go scan of the vectors read from SQLite (kb_chunks JOIN kb_vectors,
//	    the scope filter in the WHERE), dot product, top-k heap
//	A2  the same with kb_vectors as a rowid table instead of WITHOUT ROWID
//	A2m A2 with PRAGMA mmap_size set (pages mapped, not copied by read(2));
//	    Am, the same for A, runs when asked for (-variants)
//	B   a Go scan of the same vectors held in memory, one slab per scope
//	Cp  sqlite-vec vec0, the scope as a PARTITION KEY, brute-force KNN in C
//	Cm  sqlite-vec vec0, the scope as a metadata column
//
// It is its own module so the main module never depends on sqlite-vec.
// Run it from this directory (about an hour on 2 shared cores, and up to
// 3.3 GB of temporary disk at the largest size):
//
//	cd bench/vectors && CGO_ENABLED=1 go run . > results.md
//
// It needs a C compiler and the system sqlite3.h (Debian: libsqlite3-dev)
// for sqlite-vec's cgo build. Flags narrow the run, e.g.
// -dims 1536 -sizes 10000 -layouts spread -variants A,B,Cp; sqlite-vec's
// AVX code needs CGO_CFLAGS="-O2 -DSQLITE_VEC_ENABLE_AVX -mavx". Each
// variant's queries run in a child process of this binary, so its peak RSS
// is its own.
package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	_ "github.com/mattn/go-sqlite3"
)

var (
	fDims     = flag.String("dims", "1536,384", "vector dimensions, comma-separated")
	fSizes    = flag.String("sizes", "10000,100000", "chunk counts, comma-separated (multiples of 20)")
	fLayouts  = flag.String("layouts", "spread,single", "spread: 20 scopes, a query covers 3; single: one scope holds everything")
	fVariants = flag.String("variants", "A,A2,A2m,B,Cp,Cm", "variants to run (A is the reference for correctness; Am is also known)")
	fQueries  = flag.Int("queries", 200, "measured queries per variant")
	fWarmup   = flag.Int("warmup", 5, "unmeasured queries first")
	fK        = flag.Int("k", 20, "top k")
	fDir      = flag.String("dir", filepath.Join(os.TempDir(), "parley-vec-bench"), "where the databases go")
	fKeep     = flag.Bool("keep", false, "keep the databases")
	fSeed     = flag.Uint64("seed", 1, "data seed")
	fQuiet    = flag.Float64("quiet", 0.5, "before each variant, wait until other processes use fewer cores than this")
	fQuietMax = flag.Duration("quietwait", 5*time.Minute, "how long to wait for that")
	fBudget   = flag.Duration("budget", 90*time.Second, "stop a variant's measured queries after this long (at least 20 queries)")

	// A child process runs one variant's queries and prints a result as JSON.
	fChild  = flag.String("child", "", "internal: run this variant's queries")
	fDB     = flag.String("db", "", "internal: database path")
	fN      = flag.Int("n", 0, "internal: chunks")
	fDim    = flag.Int("dim", 0, "internal: dimensions")
	fLayout = flag.String("layout", "", "internal: layout")
	fProf   = flag.String("cpuprofile", "", "internal: write the child's CPU profile of the measured queries here")
)

func main() {
	log.SetFlags(0)
	flag.Parse()
	sqlite_vec.Auto() // every connection opened from now on has vec0
	cfg := config{N: *fN, Dim: *fDim, Layout: *fLayout, Seed: *fSeed}
	if *fChild != "" {
		r, err := runChild(*fChild, *fDB, cfg)
		if err != nil {
			log.Fatalf("%s: %v", *fChild, err)
		}
		if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := runParent(); err != nil {
		log.Fatal(err)
	}
}

// result is one variant's run on one data set.
type result struct {
	Variant        string
	Queries        int     // measured
	OtherCPU       float64 // cores used by other processes while measuring
	P50, P99, Mean float64 // ms
	Max            float64 // ms
	RowsPerQuery   float64 // vectors scored per query (A, A2, B)
	AllocsPerQuery float64
	PeakRSS        int64 // VmHWM of the child, bytes
	RSS            int64 // VmRSS after the queries, bytes
	CacheBytes     int64 // B: the slabs' size
	CacheHeap      int64 // B: live heap growth after loading, after GC
	CacheRSS       int64 // B: VmRSS growth from loading
	CacheLoad      time.Duration
	Plan           []string
	Tops           [][]hit
}

func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func runChild(variant, path string, cfg config) (result, error) {
	r := result{Variant: variant}
	db, err := sql.Open("sqlite3", dsnRead(path))
	if err != nil {
		return r, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	if strings.HasSuffix(variant, "m") {
		// The store's read pool sets no mmap; these variants ask whether
		// mapping the file instead of copying pages through read(2) matters.
		if _, err := db.Exec(`PRAGMA mmap_size = 8589934592`); err != nil {
			return r, err
		}
	}
	var search func(query) ([]hit, error)
	var rows *int
	switch variant {
	case "A", "A2", "Am", "A2m":
		s, err := newSQLScanner(db, *fK)
		if err != nil {
			return r, err
		}
		search = func(q query) ([]hit, error) { return s.search(cfg.model(), q) }
		rows = &s.rows
		r.Plan, err = plan(db, sqlScanA, cfg.model(), "a", "b", "c")
		if err != nil {
			return r, err
		}
	case "B":
		rss0, heap0 := procStatus("VmRSS"), heapAlloc()
		t := time.Now()
		c, err := loadCache(db, cfg.model(), cfg.Dim, *fK)
		if err != nil {
			return r, err
		}
		r.CacheLoad = time.Since(t)
		r.CacheBytes = c.bytes()
		r.CacheHeap = int64(heapAlloc() - heap0)
		r.CacheRSS = procStatus("VmRSS") - rss0
		n := 0
		search = func(q query) ([]hit, error) {
			for _, k := range q.Scopes {
				if s := c.scopes[k]; s != nil {
					n += len(s.ids)
				}
			}
			return c.search(q), nil
		}
		rows = &n
	case "Cp", "Cm":
		s, err := newVecSearcher(db, variant, cfg.Dim, *fK)
		if err != nil {
			return r, err
		}
		search = s.search
		r.Plan, err = plan(db, vec0Query(variant, *fK), encode(make([]byte, 4*cfg.Dim), make([]float32, cfg.Dim)), "a", "b", "c")
		if err != nil {
			return r, err
		}
	default:
		return r, fmt.Errorf("unknown variant %q", variant)
	}

	for _, q := range cfg.queries(*fWarmup, 1) {
		if _, err := search(q); err != nil {
			return r, err
		}
	}
	if rows != nil {
		*rows = 0
	}
	qs := cfg.queries(*fQueries, 0)
	lat := make([]float64, 0, len(qs))
	start := time.Now()
	var m0, m1 runtime.MemStats
	if *fProf != "" {
		f, err := os.Create(*fProf)
		if err != nil {
			return r, err
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	runtime.ReadMemStats(&m0)
	cpu := startCPU()
	for i, q := range qs {
		if i >= 20 && time.Since(start) > *fBudget {
			break
		}
		t := time.Now()
		top, err := search(q)
		lat = append(lat, float64(time.Since(t).Nanoseconds())/1e6)
		if err != nil {
			return r, err
		}
		r.Tops = append(r.Tops, top)
	}
	r.OtherCPU = cpu.others()
	runtime.ReadMemStats(&m1)
	r.Queries = len(lat)
	r.AllocsPerQuery = float64(m1.Mallocs-m0.Mallocs) / float64(len(lat))
	if rows != nil {
		r.RowsPerQuery = float64(*rows) / float64(len(lat))
	}
	r.Mean = 0
	for _, l := range lat {
		r.Mean += l
	}
	r.Mean /= float64(len(lat))
	slices.Sort(lat)
	r.P50, r.P99, r.Max = pct(lat, 50), pct(lat, 99), lat[len(lat)-1]
	r.PeakRSS, r.RSS = procStatus("VmHWM"), procStatus("VmRSS")
	return r, nil
}

// pct is the nearest-rank percentile of sorted xs.
func pct(xs []float64, p float64) float64 {
	i := int(math.Ceil(p/100*float64(len(xs)))) - 1
	return xs[max(i, 0)]
}

func plan(db *sql.DB, q string, args ...any) ([]string, error) {
	rows, err := db.Query("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			return nil, err
		}
		out = append(out, detail)
	}
	return out, rows.Err()
}

func ints(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func machine() string {
	var b strings.Builder
	fmt.Fprintf(&b, "- %s %s/%s, GOMAXPROCS %d, NumCPU %d\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.NumCPU())
	if ci, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(ci)) {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				fmt.Fprintf(&b, "- CPU: %s\n", strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":")))
				break
			}
		}
	}
	db, err := sql.Open("sqlite3", ":memory:")
	if err == nil {
		var sv, vv string
		if db.QueryRow(`SELECT sqlite_version(), vec_version()`).Scan(&sv, &vv) == nil {
			fmt.Fprintf(&b, "- SQLite %s (mattn/go-sqlite3 v1.14.52), sqlite-vec %s\n", sv, vv)
		}
		db.Close()
	}
	fmt.Fprintf(&b, "- CGO_CFLAGS=%q\n", os.Getenv("CGO_CFLAGS"))
	return b.String()
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

const mb = 1 << 20

// storageOf is the database a variant reads: B loads A's, and Am and A2m
// are A and A2 read through mmap.
func storageOf(v string) string {
	switch v {
	case "B", "Am":
		return "A"
	case "A2m":
		return "A2"
	}
	return v
}

func runParent() error {
	dims, err := ints(*fDims)
	if err != nil {
		return err
	}
	sizes, err := ints(*fSizes)
	if err != nil {
		return err
	}
	variants := strings.Split(*fVariants, ",")
	if err := os.MkdirAll(*fDir, 0o755); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}

	fmt.Printf("## Machine\n\n%s- load average at start: %s\n- %d measured queries per variant after %d warm-up, k=%d\n\n",
		machine(), loadavg(), *fQueries, *fWarmup, *fK)
	var table strings.Builder
	table.WriteString("| dims | chunks | layout | vectors/query | variant | queries | insert vectors (s) | file (MB): total / vectors | load (s) | p50 (ms) | p99 (ms) | mean (ms) | allocs/query | peak RSS (MB) | same top-k as the reference | other CPU (cores) |\n")
	table.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	plans := map[string][]string{}

	for _, dim := range dims {
		for _, n := range sizes {
			for _, layout := range strings.Split(*fLayouts, ",") {
				cfg := config{N: n, Dim: dim, Layout: layout, Seed: *fSeed}
				log.Printf("== dim %d, %d chunks, %s", dim, n, layout)
				vecs := make([]float32, n*dim)
				for i := range n {
					vector(cfg.Seed, i, vecs[i*dim:(i+1)*dim])
				}
				builds := map[string]build{}
				path := func(storage string) string {
					return filepath.Join(*fDir, fmt.Sprintf("d%d-n%d-%s-%s.db", dim, n, layout, storage))
				}
				for _, v := range variants {
					storage := storageOf(v)
					if _, ok := builds[storage]; ok {
						continue
					}
					waitQuiet(*fQuiet, *fQuietMax)
					cpu := startCPU()
					b, err := buildDB(path(storage), storage, cfg, vecs)
					if err != nil {
						return fmt.Errorf("build %s: %w", storage, err)
					}
					log.Printf("   built %s: chunks %.1fs, vectors %.1fs, %d MB (%d MB vectors)  (others used %.2f cores)", storage,
						b.ChunksTime.Seconds(), b.VectorsTime.Seconds(), b.TotalBytes/mb, (b.TotalBytes-b.ChunksBytes)/mb, cpu.others())
					builds[storage] = b
				}
				vecs = nil
				debug.FreeOSMemory()

				results := map[string]result{}
				for _, v := range variants {
					storage := storageOf(v)
					cmd := exec.Command(exe, "-child", v, "-db", path(storage), "-n", strconv.Itoa(n), "-dim", strconv.Itoa(dim),
						"-layout", layout, "-queries", strconv.Itoa(*fQueries), "-warmup", strconv.Itoa(*fWarmup),
						"-k", strconv.Itoa(*fK), "-seed", strconv.FormatUint(*fSeed, 10), "-budget", fBudget.String())
					waitQuiet(*fQuiet, *fQuietMax)
					var out bytes.Buffer
					cmd.Stdout, cmd.Stderr = &out, os.Stderr
					if err := cmd.Run(); err != nil {
						return fmt.Errorf("child %s: %w", v, err)
					}
					var r result
					if err := json.Unmarshal(out.Bytes(), &r); err != nil {
						return fmt.Errorf("child %s: %w", v, err)
					}
					results[v] = r
					plans[v] = r.Plan
					log.Printf("   %-3s p50 %7.2f ms  p99 %7.2f ms  peak RSS %4d MB  (%d queries; others used %.2f cores)", v, r.P50, r.P99, r.PeakRSS/mb, r.Queries, r.OtherCPU)
				}

				inScope := n
				if layout == "spread" {
					inScope = n * 3 / nScopes
				}
				for _, v := range variants {
					r := results[v]
					storage := storageOf(v)
					b := builds[storage]
					insert := fmt.Sprintf("%.1f", b.VectorsTime.Seconds())
					file := fmt.Sprintf("%d / %d", b.TotalBytes/mb, (b.TotalBytes-b.ChunksBytes)/mb)
					load := ""
					if storage != v {
						insert, file = "(as "+storage+")", "(as "+storage+")"
					}
					if v == "B" {
						load = fmt.Sprintf("%.2f; cache %d MB, heap +%d MB, RSS +%d MB", r.CacheLoad.Seconds(), r.CacheBytes/mb, r.CacheHeap/mb, r.CacheRSS/mb)
					}
					same := ""
					if ref, ok := reference(variants, results); ok && v != ref {
						same = compare(results[ref].Tops, r.Tops)
					}
					fmt.Fprintf(&table, "| %d | %d | %s | %d | %s | %d | %s | %s | %s | %.2f | %.2f | %.2f | %.0f | %d | %s | %.2f |\n",
						dim, n, layout, inScope, v, r.Queries, insert, file, load, r.P50, r.P99, r.Mean, r.AllocsPerQuery, r.PeakRSS/mb, same, r.OtherCPU)
				}
				if !*fKeep {
					for _, b := range builds {
						for _, suffix := range []string{"", "-wal", "-shm"} {
							os.Remove(path(b.Storage) + suffix)
						}
					}
				}
			}
		}
	}
	fmt.Printf("## Results\n\n%s\n", table.String())
	fmt.Printf("- the reference for \"same top-k\" is A, else A2, else B (the first that ran): identical means the same ids in the same order\n")
	fmt.Printf("- load average at end: %s\n\n## Query plans\n\n", loadavg())
	for _, v := range variants {
		if p := plans[v]; p != nil {
			fmt.Printf("- %s: %s\n", v, strings.Join(p, "; "))
		}
	}
	return nil
}

// reference is the variant the others are checked against: A, or the
// first of A2 and B when A did not run (both have A's arithmetic).
func reference(variants []string, results map[string]result) (string, bool) {
	for _, v := range []string{"A", "A2", "B"} {
		if _, ok := results[v]; ok && slices.Contains(variants, v) {
			return v, true
		}
	}
	return "", false
}

// compare says how often other's top k is A's: identical lists (same ids,
// same order), and the share of A's ids it found.
func compare(ref, other [][]hit) string {
	same, found, total, n := 0, 0, 0, min(len(ref), len(other))
	gap, lastOnly := 0.0, 0
	for i := range n {
		ids := func(h []hit) []int64 {
			out := make([]int64, len(h))
			for j, x := range h {
				out[j] = x.ID
			}
			return out
		}
		a, o := ids(ref[i]), ids(other[i])
		if slices.Equal(a, o) {
			same++
		} else if j := firstDiff(a, o); j+1 < len(a) {
			// How close were the reference's scores where the order differs?
			gap = max(gap, float64(ref[i][j].Score-ref[i][j+1].Score))
		} else {
			lastOnly++ // only the k-th hit differs: a near-tie at the cut
		}
		for _, id := range a {
			if slices.Contains(o, id) {
				found++
			}
		}
		total += len(a)
	}
	out := fmt.Sprintf("%d/%d identical, %.2f%% of ids", same, n, 100*float64(found)/float64(max(total, 1)))
	if d := n - same - lastOnly; d > 0 {
		out += fmt.Sprintf("; in %d the order differs where the reference's scores differ by ≤ %.1e", d, gap)
	}
	if lastOnly > 0 {
		out += fmt.Sprintf("; in %d only the last hit differs", lastOnly)
	}
	return out
}

func firstDiff(a, b []int64) int {
	for j := range min(len(a), len(b)) {
		if a[j] != b[j] {
			return j
		}
	}
	return min(len(a), len(b))
}
