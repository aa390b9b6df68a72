package shell

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// capture keeps the first and the last part of a command's output within a
// byte budget. Both ends matter: the head says what the command started
// doing, the tail holds the error or the summary line. It is written by
// one goroutine and read only after that goroutine is done.
type capture struct {
	headCap, tailCap int
	head, tail       []byte
	total            int64
}

func newCapture(limit int) *capture {
	return &capture{headCap: limit / 2, tailCap: limit - limit/2}
}

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if room := c.headCap - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > 0 {
		c.tail = append(c.tail, p...)
		// Trim only when the buffer has doubled, so copying stays
		// amortized O(1) per byte.
		if len(c.tail) > 2*c.tailCap {
			c.tail = append(c.tail[:0], c.tail[len(c.tail)-c.tailCap:]...)
		}
	}
	return n, nil
}

// String returns the output, or head and tail around a marker saying how
// much was left out. Cuts fall on UTF-8 boundaries.
func (c *capture) String() string {
	tail := c.tail
	if len(tail) > c.tailCap {
		tail = tail[len(tail)-c.tailCap:]
	}
	if c.total <= int64(c.headCap+c.tailCap) {
		return clean(string(c.head) + string(tail))
	}
	head := trimPartialRuneEnd(c.head)
	tail = trimPartialRuneStart(tail)
	omitted := c.total - int64(len(head)) - int64(len(tail))
	return clean(string(head)) + fmt.Sprintf("\n[… %d bytes omitted …]\n", omitted) + clean(string(tail))
}

func trimPartialRuneEnd(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

func trimPartialRuneStart(b []byte) []byte {
	for k := 0; k < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); k++ {
		b = b[1:]
	}
	return b
}

// clean makes binary output safe to hand to the model as text.
func clean(s string) string {
	return strings.ToValidUTF8(s, "\uFFFD")
}
