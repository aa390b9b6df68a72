package chat

import (
	"bytes"
	"fmt"
	"io"
	"math"
)

// What every FileFetcher does the same way: refuse an oversized file
// before downloading it, and never read more than the limit whatever the
// platform declared.

// String names f in errors and logs by its name and id, never its URL
// (Telegram's carries the bot token). The name is quoted: people chose it.
func (f File) String() string {
	if f.ID == "" {
		return fmt.Sprintf("file %q", f.Name)
	}
	return fmt.Sprintf("file %q (%s)", f.Name, f.ID)
}

// CheckFileSize refuses f before any download when its declared size is
// over max, and refuses a max that is no limit at all (a caller that
// forgot one must not download without bound).
func CheckFileSize(f File, max int64) error {
	if max <= 0 {
		return fmt.Errorf("fetch %v: the size limit %d is not positive", f, max)
	}
	if f.Size > max {
		return fmt.Errorf("%w: %v is %d bytes, the limit is %d", ErrFileTooLarge, f, f.Size, max)
	}
	return nil
}

// ReadFile reads the download of f from body to its end, at most max
// bytes. length is the size the transfer declares (Content-Length, -1
// when unknown), refused at once when over max. Reading stops one byte
// past max, so a transfer that declared less than it sends, or nothing,
// costs at most max+1 bytes of memory before it is refused.
func ReadFile(body io.Reader, length int64, f File, max int64) ([]byte, error) {
	if err := CheckFileSize(File{ID: f.ID, Name: f.Name, Size: length}, max); err != nil {
		return nil, err
	}
	limit := max
	if limit < math.MaxInt64 {
		limit++
	}
	// Sized from the declared length when there is one: io.ReadAll's
	// doubling would allocate some 2.5 times a 4 MB screenshot.
	var buf bytes.Buffer
	if length > 0 {
		buf.Grow(int(length) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(body, limit)); err != nil {
		return nil, fmt.Errorf("read %v: %w", f, err)
	}
	b := buf.Bytes()
	if int64(len(b)) > max {
		declared := "no size was declared"
		if f.Size > 0 {
			declared = fmt.Sprintf("it was declared as %d", f.Size)
		}
		return nil, fmt.Errorf("%w: %v is more than the limit of %d bytes (%s)", ErrFileTooLarge, f, max, declared)
	}
	return b, nil
}
