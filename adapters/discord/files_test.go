package discord_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
)

// TestAttachmentReachesTheHandlerAndDownloads: a DM "/kb add" with a file
// arrives with the file, and FetchFile downloads it from its URL without
// the bot token; a voice message arrives with its length.
func TestAttachmentReachesTheHandlerAndDownloads(t *testing.T) {
	srv := discordtest.NewServer(discordtest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	const alice = "300000000000000001"
	srv.AddUser(alice, "alice")
	dm := srv.DMChannel(alice)
	ad, h := startRun(t, srv, "")
	waitFor(t, srv, "the gateway", srv.Connected)

	data := []byte("# Handbook\nBe kind.\n")
	id := srv.Post(discordtest.Incoming{Channel: dm, Author: alice, Content: "/kb add",
		Attachments: []discordtest.Attachment{{Filename: "hand book.md", ContentType: "text/markdown", Data: data}}})
	m := h.waitMessage(t, "/kb add")
	att := srv.Attachments(id)
	want := chat.File{ID: att[0], Name: "hand book.md", MIME: "text/markdown", Size: int64(len(data)), URL: srv.AttachmentURL(att[0])}
	if len(m.Files) != 1 || m.Files[0] != want {
		t.Fatalf("files %+v, want %+v", m.Files, want)
	}
	got, err := ad.FetchFile(t.Context(), m.Files[0], 1<<20)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("FetchFile = %q, %v", got, err)
	}
	if d := srv.Downloads(); len(d) != 1 || d[0].Authorization != "" || d[0].Status != http.StatusOK {
		t.Errorf("downloads %+v, want one without a token", d)
	}

	// A voice message's attachment carries its length (duration_secs),
	// which the core limits before downloading.
	srv.Post(discordtest.Incoming{Channel: dm, Author: alice, Content: "listen",
		Attachments: []discordtest.Attachment{{Filename: "voice-message.ogg", ContentType: "audio/ogg", Data: []byte("OggS"), DurationSecs: 42.5}}})
	if v := h.waitMessage(t, "listen"); len(v.Files) != 1 || v.Files[0].Duration != 42500*time.Millisecond || v.Files[0].MIME != "audio/ogg" {
		t.Fatalf("files %+v, want one audio/ogg of 42.5 s", v.Files)
	}
}

// foreignHost stands for a host that is not Discord's CDN: it records
// every request.
type foreignHost struct {
	*httptest.Server
	mu   sync.Mutex
	hits int
}

func newForeignHost(t *testing.T) *foreignHost {
	f := &foreignHost{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		f.mu.Lock()
		f.hits++
		f.mu.Unlock()
		_, _ = io.WriteString(w, "not yours")
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *foreignHost) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits
}

func TestFetchFile(t *testing.T) {
	srv := discordtest.NewServer(discordtest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	const alice = "300000000000000001"
	srv.AddUser(alice, "alice")
	dm := srv.DMChannel(alice)
	ad, err := discord.New(discord.Config{Token: srv.Token(), APIURL: srv.APIURL()})
	if err != nil {
		t.Fatal(err)
	}
	foreign := newForeignHost(t)
	big := bytes.Repeat([]byte("x"), 1000)
	post := func(a discordtest.Attachment) chat.File {
		ids := srv.Attachments(srv.Post(discordtest.Incoming{Channel: dm, Author: alice, Content: "/kb add",
			Attachments: []discordtest.Attachment{a}}))
		size := a.Size
		if size == 0 {
			size = int64(len(a.Data))
		}
		return chat.File{ID: ids[0], Name: a.Filename, MIME: a.ContentType, Size: size, URL: srv.AttachmentURL(ids[0])}
	}
	gone := post(discordtest.Attachment{Filename: "gone.txt", Data: []byte("x")})
	srv.FailAttachment(gone.ID, http.StatusNotFound)
	broken := post(discordtest.Attachment{Filename: "broken.txt", Data: []byte("x")})
	srv.FailAttachment(broken.ID, http.StatusInternalServerError)
	slow := post(discordtest.Attachment{Filename: "slow.txt", Data: []byte("x")})
	srv.FailAttachment(slow.ID, http.StatusTooManyRequests)
	forged := post(discordtest.Attachment{Filename: "forged.txt", Data: []byte("x")})
	forged.URL = foreign.URL + "/attachments/" + dm + "/" + forged.ID + "/forged.txt"

	tests := []struct {
		name      string
		file      chat.File
		max       int64
		want      string
		err       error  // errors.Is
		errText   string // in the message
		downloads int    // requests the fake's CDN got
	}{
		{name: "fits", file: post(discordtest.Attachment{Filename: "a.txt", Data: []byte("hello")}), max: 5, want: "hello", downloads: 1},
		{name: "declared size over the limit: nothing downloaded", file: post(discordtest.Attachment{Filename: "big.bin", Data: big}),
			max: 999, err: chat.ErrFileTooLarge, errText: "1000 bytes"},
		{name: "a lying declared size is enforced while reading",
			file: post(discordtest.Attachment{Filename: "liar.bin", Data: big, Size: 10, Chunked: true}), max: 100,
			err: chat.ErrFileTooLarge, errText: "declared as 10", downloads: 1},
		{name: "a lying declared size meets Content-Length", file: post(discordtest.Attachment{Filename: "liar2.bin", Data: big, Size: 10}),
			max: 100, err: chat.ErrFileTooLarge, downloads: 1},
		{name: "404", file: gone, max: 100, errText: "is gone (HTTP 404 Not Found)", downloads: 1},
		{name: "500", file: broken, max: 100, errText: "failed serving", downloads: 1},
		{name: "429", file: slow, max: 100, errText: "429", downloads: 1},
		{name: "a foreign host is refused", file: forged, max: 100, err: adapterkit.ErrHostRefused, errText: "not on Discord's CDN"},
		{name: "no URL", file: chat.File{ID: "1", Name: "x"}, max: 100, errText: "no URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(srv.Downloads())
			got, err := ad.FetchFile(t.Context(), tt.file, tt.max)
			if tt.err != nil || tt.errText != "" {
				if err == nil || (tt.err != nil && !errors.Is(err, tt.err)) || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("FetchFile = %q, %v; want %v with %q", got, err, tt.err, tt.errText)
				}
			} else if err != nil || string(got) != tt.want {
				t.Fatalf("FetchFile = %q, %v; want %q", got, err, tt.want)
			}
			if n := len(srv.Downloads()) - before; n != tt.downloads {
				t.Errorf("%d download(s), want %d", n, tt.downloads)
			}
		})
	}
	if _, ok := chat.RetryAfter(func() error { _, err := ad.FetchFile(t.Context(), slow, 100); return err }()); !ok {
		t.Error("a 429 from the CDN is no *chat.RateLimitError")
	}
	for _, d := range srv.Downloads() {
		if d.Authorization != "" {
			t.Errorf("a download carried Authorization %q", d.Authorization)
		}
	}
	if n := foreign.requests(); n != 0 {
		t.Errorf("the foreign host got %d request(s)", n)
	}
}
