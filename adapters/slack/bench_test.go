package slack

import (
	"log/slog"
	"testing"

	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/agent/media"
	"github.com/parleybot/parley/agent/media/mediatest"
	"github.com/parleybot/parley/chat"
)

// BenchmarkFetchScreenshot: what a turn does with each picture before the
// model is asked, for a 4 MB 2880×1800 PNG screenshot — fetch: FetchFile
// from slacktest over loopback HTTP with the bot token, host-checked and
// size-capped; fetch+encode: then media.Prepare, which decodes it, scales
// it to 1568 px and re-encodes it as PNG.
func BenchmarkFetchScreenshot(b *testing.B) {
	srv := slacktest.NewServer(slacktest.WithoutRateLimits())
	b.Cleanup(srv.Close)
	srv.AddUser("UALICE", "alice")
	srv.AddChannel("DALICE", "DALICE", slacktest.IM)
	ad, err := New(Config{BotToken: srv.BotToken(), AppToken: srv.AppToken(), APIURL: srv.URL + "/", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	shot := mediatest.Screenshot()
	_, ids := srv.PostUserFiles("DALICE", "UALICE", "", "", slacktest.File{Name: "screenshot.png", MIME: "image/png", Data: shot})
	f := chat.File{ID: ids[0], Name: "screenshot.png", MIME: "image/png", Size: int64(len(shot)), URL: srv.FileURL(ids[0])}
	for _, tc := range []struct {
		name    string
		prepare bool
	}{{"fetch", false}, {"fetch+encode", true}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(shot)))
			b.ReportAllocs()
			for b.Loop() {
				data, err := ad.FetchFile(b.Context(), f, 20<<20)
				if err != nil {
					b.Fatal(err)
				}
				if tc.prepare {
					if _, err := media.Prepare(data, f.Name, media.Limits{}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
