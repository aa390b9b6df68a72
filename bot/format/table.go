package format

import (
	"strings"

	"github.com/rivo/uniseg"
	east "github.com/yuin/goldmark/extension/ast"
)

// formatTable lays rows out as monospace text:
//
//	Name  | Qty
//	------+----
//	apple |   3
//
// Column widths use display width (uniseg), so CJK and emoji cells, which
// take two columns in a monospace font, still line up. The first row is the
// header.
func formatTable(rows [][]string, aligns []east.Alignment) string {
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	widths := make([]int, cols)
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], uniseg.StringWidth(cell))
		}
	}
	var b strings.Builder
	writeRow := func(r []string) {
		var lb strings.Builder
		for i := 0; i < cols; i++ {
			if i > 0 {
				lb.WriteString(" | ")
			}
			var cell string
			if i < len(r) {
				cell = r[i]
			}
			gap := widths[i] - uniseg.StringWidth(cell)
			align := east.AlignNone
			if i < len(aligns) {
				align = aligns[i]
			}
			switch align {
			case east.AlignRight:
				lb.WriteString(strings.Repeat(" ", gap))
				lb.WriteString(cell)
			case east.AlignCenter:
				lb.WriteString(strings.Repeat(" ", gap/2))
				lb.WriteString(cell)
				lb.WriteString(strings.Repeat(" ", gap-gap/2))
			default:
				lb.WriteString(cell)
				lb.WriteString(strings.Repeat(" ", gap))
			}
		}
		b.WriteString(strings.TrimRight(lb.String(), " "))
		b.WriteByte('\n')
	}
	for i, r := range rows {
		writeRow(r)
		if i == 0 {
			for j := 0; j < cols; j++ {
				if j > 0 {
					b.WriteString("-+-")
				}
				b.WriteString(strings.Repeat("-", max(widths[j], 1)))
			}
			b.WriteByte('\n')
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
