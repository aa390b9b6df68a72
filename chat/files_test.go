package chat

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadFile(t *testing.T) {
	f := File{ID: "F1", Name: "notes.txt", Size: 5}
	tests := []struct {
		name    string
		file    File
		body    string
		length  int64
		max     int64
		want    string
		tooBig  bool
		errText string
	}{
		{name: "fits", file: f, body: "hello", length: 5, max: 5, want: "hello"},
		{name: "no size declared anywhere", file: File{Name: "x"}, body: "hello", length: -1, max: 10, want: "hello"},
		{name: "empty file", file: File{Name: "x"}, body: "", length: 0, max: 1, want: ""},
		{name: "declared length over max", file: f, body: "hello", length: 6, max: 5, tooBig: true, errText: "6 bytes"},
		{name: "lying declared size, enforced while reading", file: f, body: "hello, world", length: -1, max: 5, tooBig: true, errText: "declared as 5"},
		{name: "lying Content-Length is not trusted either", file: File{Name: "x"}, body: "hello, world", length: 3, max: 5, tooBig: true, errText: "no size was declared"},
		{name: "no limit", file: f, body: "hello", length: 5, max: 0, errText: "not positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadFile(strings.NewReader(tt.body), tt.length, tt.file, tt.max)
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) || errors.Is(err, ErrFileTooLarge) != tt.tooBig {
					t.Fatalf("ReadFile = %q, %v; want an error with %q (too large: %v)", got, err, tt.errText, tt.tooBig)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("ReadFile = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestReadFileStopsPastMax: a body that never ends is read only to one
// byte past the limit.
func TestReadFileStopsPastMax(t *testing.T) {
	r := &countingReader{}
	_, err := ReadFile(r, -1, File{Name: "endless"}, 1000)
	if !errors.Is(err, ErrFileTooLarge) {
		t.Fatalf("err = %v, want ErrFileTooLarge", err)
	}
	if r.n > 1001 {
		t.Errorf("read %d bytes of an endless body, want at most 1001", r.n)
	}
}

func TestReadFileReadError(t *testing.T) {
	_, err := ReadFile(iotest.ErrReader(errors.New("connection reset")), -1, File{Name: "x"}, 10)
	if err == nil || errors.Is(err, ErrFileTooLarge) || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("err = %v", err)
	}
}

func TestCheckFileSize(t *testing.T) {
	if err := CheckFileSize(File{Size: 10}, 10); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if err := CheckFileSize(File{}, 10); err != nil {
		t.Errorf("size unknown: %v", err)
	}
	err := CheckFileSize(File{ID: "F1", Name: "big.pdf", Size: 11}, 10)
	if !errors.Is(err, ErrFileTooLarge) || !strings.Contains(err.Error(), `"big.pdf" (F1) is 11 bytes, the limit is 10`) {
		t.Errorf("over the limit: %v", err)
	}
}

// countingReader is an endless body of 'x', counting what was read.
type countingReader struct{ n int }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	r.n += len(p)
	return len(p), nil
}
