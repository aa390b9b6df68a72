package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

// TestEstimateAgainstO200k keeps the estimate within ±25 % of the o200k
// tokenizer for every sample of a mixed English / Chinese / Japanese /
// Korean / code corpus, and for the corpus as a whole.
func TestEstimateAgainstO200k(t *testing.T) {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("testdata", "tokens", "*"))
	if err != nil || len(files) < 5 {
		t.Fatalf("corpus: %v (%d files)", err, len(files))
	}
	var sumEst, sumReal int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ids, _, err := enc.Encode(string(b))
		if err != nil {
			t.Fatal(err)
		}
		est, real := EstimateTokens(string(b)), len(ids)
		sumEst += est
		sumReal += real
		dev := float64(est-real) / float64(real)
		t.Logf("%-12s o200k=%4d estimate=%4d (%+.0f%%)", filepath.Base(f), real, est, dev*100)
		if dev < -0.25 || dev > 0.25 {
			t.Errorf("%s: estimate %d is %+.0f%% off o200k's %d", filepath.Base(f), est, dev*100, real)
		}
	}
	if dev := float64(sumEst-sumReal) / float64(sumReal); dev < -0.25 || dev > 0.25 {
		t.Errorf("corpus: estimate %d is %+.0f%% off o200k's %d", sumEst, dev*100, sumReal)
	}
}

func TestCalibration(t *testing.T) {
	var c Calibration
	if got := c.Scale(100); got != 100 {
		t.Fatalf("uncalibrated Scale(100) = %d", got)
	}
	c.Observe(100, 0) // no usage reported: ignored
	if got := c.Scale(100); got != 100 {
		t.Fatalf("zero usage changed calibration: %d", got)
	}
	for range 30 {
		c.Observe(100, 150) // a tokenizer that counts 1.5× ours
	}
	if got := c.Scale(1000); got < 1490 || got > 1510 {
		t.Fatalf("after converging on 1.5×, Scale(1000) = %d", got)
	}
	c.Observe(100, 100000) // one absurd answer is clamped
	if got := c.Scale(1000); got > 1600*3 {
		t.Fatalf("one observation swung calibration to %d", got)
	}
}

func BenchmarkEstimateTokens(b *testing.B) {
	text, err := os.ReadFile(filepath.Join("testdata", "tokens", "mixed.txt"))
	if err != nil {
		b.Fatal(err)
	}
	s := string(text)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		EstimateTokens(s)
	}
}
