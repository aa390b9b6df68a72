package telegram

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

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
)

// newFileFake is the full fake with the unit tests' token, whose secret
// part no error may show, and an adapter on it.
func newFileFake(t *testing.T) (*telegramtest.Server, *Adapter) {
	t.Helper()
	srv := telegramtest.NewServer(telegramtest.WithoutRateLimits(), telegramtest.WithToken(testToken))
	t.Cleanup(srv.Close)
	a, err := New(Config{Token: testToken, APIURL: srv.URL, State: newMemState(), PollTimeout: time.Second, Logger: discard})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return srv, a
}

// checkNoToken fails the test when err shows the token, or its secret
// half.
func checkNoToken(t *testing.T, err error) {
	t.Helper()
	if err != nil && (strings.Contains(err.Error(), testToken) || strings.Contains(err.Error(), "very-secret")) {
		t.Errorf("the error shows the token: %v", err)
	}
}

// TestDocumentReachesTheHandlerAndDownloads: a document captioned
// "/kb add" arrives as that command with the file, and FetchFile fetches
// it through getFile and the file endpoint.
func TestDocumentReachesTheHandlerAndDownloads(t *testing.T) {
	srv, a := newFileFake(t)
	srv.AddUser(11, "Alice", "alice")
	h := newRecorder()
	running(t, a, h)
	data := []byte("# Handbook\nBe kind.\n")
	p := srv.Post(telegramtest.Incoming{Chat: 11, From: 11, Text: "/kb add",
		Document: &telegramtest.Attachment{Name: "handbook.md", MIME: "text/markdown", Data: data}})
	h.waitFor(t, "the message", func() bool { return len(h.messages()) > 0 })
	m := h.messages()[0]
	want := chat.File{ID: p.FileID, Name: "handbook.md", MIME: "text/markdown", Size: int64(len(data))}
	if name, args, ok := chat.ParseCommand(m.Text); !ok || name != "kb" || len(args) != 1 || len(m.Files) != 1 || m.Files[0] != want {
		t.Fatalf("message %q with files %+v, want /kb add with %+v", m.Text, m.Files, want)
	}
	got, err := a.FetchFile(t.Context(), m.Files[0], 1<<20)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("FetchFile = %q, %v", got, err)
	}
	if d := srv.Downloads(); len(d) != 1 || d[0].FileID != p.FileID || d[0].Status != http.StatusOK {
		t.Errorf("downloads %+v", d)
	}
}

// TestPhotoIsItsLargestSize: the fake sends a thumbnail and the photo;
// the message carries the photo, and it downloads.
func TestPhotoIsItsLargestSize(t *testing.T) {
	srv, a := newFileFake(t)
	h := newRecorder()
	running(t, a, h)
	p := srv.Post(telegramtest.Incoming{Chat: 11, From: 11, Text: "what is this?", Photo: &telegramtest.Attachment{Data: []byte("JPEG")}})
	h.waitFor(t, "the message", func() bool { return len(h.messages()) > 0 })
	m := h.messages()[0]
	if len(m.Files) != 1 || m.Files[0] != (chat.File{ID: p.FileID, Name: "photo.jpg", MIME: "image/jpeg", Size: 4}) {
		t.Fatalf("files %+v", m.Files)
	}
	if got, err := a.FetchFile(t.Context(), m.Files[0], 100); err != nil || string(got) != "JPEG" {
		t.Fatalf("FetchFile = %q, %v", got, err)
	}
}

// foreignHost stands for a host that is not Telegram's: it records every
// request.
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
	srv, a := newFileFake(t)
	foreign := newForeignHost(t)
	big := bytes.Repeat([]byte("x"), 1000)
	post := func(att telegramtest.Attachment) chat.File {
		p := srv.Post(telegramtest.Incoming{Chat: 11, From: 11, Text: "/kb add", Document: &att})
		size := att.Size
		if size == 0 {
			size = int64(len(att.Data))
		}
		return chat.File{ID: p.FileID, Name: att.Name, Size: size}
	}
	gone := post(telegramtest.Attachment{Name: "gone.txt", Data: []byte("x")})
	srv.FailFile(gone.ID, http.StatusNotFound)
	broken := post(telegramtest.Attachment{Name: "broken.txt", Data: []byte("x")})
	srv.FailFile(broken.ID, http.StatusInternalServerError)
	forged := post(telegramtest.Attachment{Name: "forged.txt", Data: []byte("mine")})
	forged.URL = foreign.URL + "/file/bot" + testToken + "/documents/forged.txt"
	huge := post(telegramtest.Attachment{Name: "huge.iso", Data: []byte("x"), Size: 25 << 20})
	hugeUndeclared := huge
	hugeUndeclared.Size = 0 // the message did not say; getFile refuses it

	tests := []struct {
		name      string
		file      chat.File
		max       int64
		want      string
		err       error  // errors.Is
		errText   string // in the message
		getFile   int    // getFile calls made
		downloads int    // requests for the file's bytes
	}{
		{name: "fits", file: post(telegramtest.Attachment{Name: "a.txt", Data: []byte("hello")}), max: 5, want: "hello", getFile: 1, downloads: 1},
		{name: "a URL in the file is ignored: the file comes from the Bot API", file: forged, max: 100, want: "mine", getFile: 1, downloads: 1},
		{name: "declared size over the limit: nothing asked", file: post(telegramtest.Attachment{Name: "big.bin", Data: big}), max: 999,
			err: chat.ErrFileTooLarge, errText: "1000 bytes"},
		{name: "over Telegram's 20 MB: getFile is not asked", file: huge, max: 100 << 20, err: chat.ErrFileTooLarge, errText: "up to 20 MB"},
		{name: "over 20 MB, undeclared: getFile refuses", file: hugeUndeclared, max: 100 << 20, err: chat.ErrFileTooLarge,
			errText: "file is too big", getFile: 1},
		{name: "a lying declared size is enforced while reading",
			file: post(telegramtest.Attachment{Name: "liar.bin", Data: big, Size: 10, Chunked: true}), max: 100,
			err: chat.ErrFileTooLarge, errText: "declared as 10", getFile: 1, downloads: 1},
		{name: "a lying declared size meets Content-Length", file: post(telegramtest.Attachment{Name: "liar2.bin", Data: big, Size: 10}),
			max: 100, err: chat.ErrFileTooLarge, getFile: 1, downloads: 1},
		{name: "404", file: gone, max: 100, errText: "is gone (HTTP 404 Not Found)", getFile: 1, downloads: 1},
		{name: "500", file: broken, max: 100, errText: "failed serving", getFile: 1, downloads: 1},
		{name: "an unknown file_id", file: chat.File{ID: "nope", Name: "x"}, max: 100, errText: "does not know its file_id", getFile: 1},
		{name: "no limit", file: gone, max: -1, errText: "not positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, downloads := len(srv.CallsTo("getFile")), len(srv.Downloads())
			got, err := a.FetchFile(t.Context(), tt.file, tt.max)
			checkNoToken(t, err)
			if tt.err != nil || tt.errText != "" {
				if err == nil || (tt.err != nil && !errors.Is(err, tt.err)) || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("FetchFile = %q, %v; want %v with %q", got, err, tt.err, tt.errText)
				}
			} else if err != nil || string(got) != tt.want {
				t.Fatalf("FetchFile = %q, %v; want %q", got, err, tt.want)
			}
			if n := len(srv.CallsTo("getFile")) - calls; n != tt.getFile {
				t.Errorf("%d getFile call(s), want %d", n, tt.getFile)
			}
			if n := len(srv.Downloads()) - downloads; n != tt.downloads {
				t.Errorf("%d download(s), want %d", n, tt.downloads)
			}
		})
	}
	if n := foreign.requests(); n != 0 {
		t.Errorf("the foreign host got %d request(s)", n)
	}
}

// TestFetchFileRedirectAwayAndTransportErrors: a Bot API whose file
// endpoint redirects elsewhere is not followed there, and a server that
// is down gives an error; neither shows the token.
func TestFetchFileRedirectAwayAndTransportErrors(t *testing.T) {
	foreign := newForeignHost(t)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/getFile") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"ok":true,"result":{"file_id":"d","file_unique_id":"u","file_size":4,"file_path":"documents/file_1.txt"}}`)
			return
		}
		http.Redirect(w, r, foreign.URL+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(api.Close)
	a, err := New(Config{Token: testToken, APIURL: api.URL, State: newMemState(), Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.FetchFile(t.Context(), chat.File{ID: "d", Name: "a.txt"}, 100)
	if !errors.Is(err, adapterkit.ErrRedirectRefused) {
		t.Errorf("FetchFile = %v, want a refused redirect", err)
	}
	checkNoToken(t, err)
	if n := foreign.requests(); n != 0 {
		t.Errorf("the foreign host got %d request(s)", n)
	}

	api.Close() // connection refused from now on
	_, err = a.FetchFile(t.Context(), chat.File{ID: "d", Name: "a.txt"}, 100)
	if err == nil {
		t.Fatal("FetchFile from a closed server succeeded")
	}
	checkNoToken(t, err)
}

func TestFileStatus(t *testing.T) {
	f := chat.File{ID: "d", Name: "a.pdf"}
	resp := func(code int, retryAfter string) *http.Response {
		return &http.Response{StatusCode: code, Header: http.Header{"Retry-After": {retryAfter}}}
	}
	if err := fileHost().Status(f, resp(http.StatusOK, "")); err != nil {
		t.Errorf("200: %v", err)
	}
	if d, ok := chat.RetryAfter(fileHost().Status(f, resp(http.StatusTooManyRequests, "3"))); !ok || d != 3*time.Second {
		t.Errorf("429: retry after %v, %v", d, ok)
	}
	if err := fileHost().Status(f, resp(http.StatusUnauthorized, "")); !errors.Is(err, chat.ErrAuth) {
		t.Errorf("401: %v", err)
	}
	if err := fileHost().Status(f, resp(http.StatusForbidden, "")); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("403: %v", err)
	}
}
