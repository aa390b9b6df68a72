package media_test

import (
	"testing"

	"github.com/parleybot/parley/agent/media"
	"github.com/parleybot/parley/agent/media/mediatest"
)

// BenchmarkPrepareScreenshot: a 4 MB 2880×1800 PNG screenshot checked,
// decoded, scaled to 1568 px and re-encoded as PNG. The fetch over HTTP
// is measured with the adapters (adapters/slack BenchmarkFetchScreenshot).
func BenchmarkPrepareScreenshot(b *testing.B) {
	shot := mediatest.Screenshot()
	b.SetBytes(int64(len(shot)))
	b.ReportAllocs()
	var out int
	for b.Loop() {
		img, err := media.Prepare(shot, "screenshot.png", media.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		out = len(img.Data)
	}
	b.ReportMetric(float64(out), "out-bytes")
}
