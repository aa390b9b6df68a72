package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// parleyView is what Parley's own /metrics says of the run
// (docs/operations.md): its inbound → model histogram, from the event
// reaching its core to the model request going out, and the edits it
// made against the budget its answers' streaming allowed.
type parleyView struct {
	// InboundP50 and InboundP99 are upper bounds: the histogram bucket
	// the percentile falls in (the buckets are 0.5 ms, then 1, 2, 3, 4,
	// 5, 7.5, 10 ms…).
	InboundP50 millis  `json:"inbound_to_model_p50_ms_at_most"`
	InboundP99 millis  `json:"inbound_to_model_p99_ms_at_most"`
	Within5ms  float64 `json:"inbound_to_model_within_5ms"` // share of requests, 0–1
	Inbound    int     `json:"inbound_to_model_count"`
	Edits      int     `json:"edits"`
	EditBudget int     `json:"edit_budget"`
	// WriterWaits and WriterWaited are how often, and how long in all,
	// store operations waited for SQLite's one writer connection.
	WriterWaits  int    `json:"store_writer_waits"`
	WriterWaited millis `json:"store_writer_waited_ms"`
	Commits      int    `json:"store_commits"` // write transactions
}

// freeAddr is a loopback address for Parley's http.listen: one the
// kernel just handed out and took back (another process could take it
// meanwhile; Parley would then fail to start, loudly).
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// scrapeParley reads the /metrics of the Parleys at addrs (one per
// replica) and sums them.
func scrapeParley(ctx context.Context, addrs ...string) (parleyView, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var all bytes.Buffer
	for _, addr := range addrs {
		if err := fetchMetrics(ctx, addr, &all); err != nil {
			return parleyView{}, err
		}
	}
	return parseMetrics(&all)
}

// fetchMetrics appends the exposition at addr's /metrics to w.
func fetchMetrics(ctx context.Context, addr string, w io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s/metrics: %s", addr, resp.Status)
	}
	_, err = io.Copy(w, resp.Body)
	return err
}

// parseMetrics reads the few series the report needs from a Prometheus
// text exposition, summed over platforms (and over replicas, when it is
// several expositions one after the other).
func parseMetrics(r io.Reader) (parleyView, error) {
	var v parleyView
	buckets := map[float64]float64{} // le → cumulative count, summed over platforms
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		series, val, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.Fields(val)[0], 64)
		if err != nil {
			continue
		}
		name, labels, _ := strings.Cut(series, "{")
		switch name {
		case "parley_inbound_to_model_seconds_bucket":
			le, err := strconv.ParseFloat(label(labels, "le"), 64)
			if err == nil {
				buckets[le] += f
			}
		case "parley_edits_total":
			v.Edits += int(f)
		case "parley_edit_budget_total":
			v.EditBudget += int(f)
		case "parley_store_commits_total":
			v.Commits += int(f)
		case "parley_store_waits_total":
			if label(labels, "pool") == "writer" {
				v.WriterWaits += int(f)
			}
		case "parley_store_wait_seconds_total":
			if label(labels, "pool") == "writer" {
				v.WriterWaited += millis(time.Duration(f * float64(time.Second)))
			}
		}
	}
	if err := sc.Err(); err != nil {
		return v, err
	}
	bounds := make([]float64, 0, len(buckets))
	for le := range buckets {
		bounds = append(bounds, le)
	}
	slices.Sort(bounds)
	if len(bounds) == 0 {
		return v, nil
	}
	total := buckets[bounds[len(bounds)-1]] // le="+Inf"
	v.Inbound = int(total)
	if total == 0 {
		return v, nil
	}
	v.Within5ms = buckets[0.005] / total
	v.InboundP50 = bucketBound(bounds, buckets, total, 0.50)
	v.InboundP99 = bucketBound(bounds, buckets, total, 0.99)
	return v, nil
}

// bucketBound is the upper bound of the first bucket holding at least q
// of total: the q-quantile is at most that.
func bucketBound(bounds []float64, cumulative map[float64]float64, total, q float64) millis {
	for _, le := range bounds {
		if cumulative[le] >= q*total {
			if math.IsInf(le, 1) {
				return millis(math.MaxInt64)
			}
			return millis(time.Duration(le * float64(time.Second)))
		}
	}
	return 0
}

// label reads one label's value from a series' label text.
func label(labels, name string) string {
	for _, kv := range strings.Split(strings.TrimSuffix(labels, "}"), ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}
