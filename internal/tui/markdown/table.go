package markdown

import (
	"strings"

	"github.com/ctxloop/agent/internal/tui/markdown/gfm"
)

// A table's columns take their natural width when the table fits; when
// it does not, the room is shared out so that narrow columns keep their
// width and wide ones wrap their cells. Columns are separated by " │ ",
// the header by a rule; a table too wide even at one cell a column is cut
// at the width.

const colSep = " │ "

func (r *renderer) table(t *gfm.Node) {
	var rows [][][]atom // rows of cells
	var aligns []gfm.Alignment
	header := 0
	for row := t.FirstChild; row != nil; row = row.Next {
		if row.Kind == gfm.TableHeader {
			header++
		}
		var cells [][]atom
		for cell := row.FirstChild; cell != nil; cell = cell.Next {
			st := style{}
			if row.Kind == gfm.TableHeader {
				st = r.p.tableHead
			}
			cells = append(cells, r.inlines(cell, st))
			if len(aligns) < len(cells) {
				aligns = append(aligns, cell.Align)
			}
		}
		rows = append(rows, cells)
	}
	ncol := 0
	for _, row := range rows {
		ncol = max(ncol, len(row))
	}
	if ncol == 0 {
		return
	}
	for len(aligns) < ncol {
		aligns = append(aligns, gfm.AlignNone)
	}
	natural := make([]int, ncol)
	for _, row := range rows {
		for i, cell := range row {
			natural[i] = max(natural[i], oneLineWidth(cell))
		}
	}
	widths := shareWidth(natural, r.avail()-len([]rune(colSep))*(ncol-1))
	sep := seg{text: colSep, st: r.p.rule}
	for ri, row := range rows {
		cellLines := make([][][]seg, ncol)
		height := 1
		for i := 0; i < ncol; i++ {
			if i < len(row) {
				cellLines[i] = wrapAtoms(row[i], widths[i])
			}
			height = max(height, len(cellLines[i]))
		}
		for h := 0; h < height; h++ {
			var line []seg
			for i := 0; i < ncol; i++ {
				if i > 0 {
					line = append(line, sep)
				}
				var cell []seg
				if h < len(cellLines[i]) {
					cell = cellLines[i][h]
				}
				line = append(line, align(cell, widths[i], aligns[i])...)
			}
			r.line(line)
		}
		if ri == header-1 {
			var rule strings.Builder
			for i, w := range widths {
				if i > 0 {
					rule.WriteString("─┼─")
				}
				rule.WriteString(strings.Repeat("─", w))
			}
			r.line([]seg{{text: rule.String(), st: r.p.rule}})
		}
	}
}

// oneLineWidth is the width of a cell's content on one line.
func oneLineWidth(atoms []atom) int {
	w := 0
	for i, a := range atoms {
		if a.space != nil && i > 0 {
			w++
		}
		w += a.width
	}
	return w
}

// shareWidth fits columns of natural widths into room cells: columns
// narrower than an equal share keep their width, the others split the
// rest equally. Every column gets at least one cell.
func shareWidth(natural []int, room int) []int {
	out := make([]int, len(natural))
	total := 0
	for _, w := range natural {
		total += max(w, 1)
	}
	if total <= room {
		for i, w := range natural {
			out[i] = max(w, 1)
		}
		return out
	}
	fixed := make([]bool, len(natural))
	left, open := room, len(natural)
	for changed := true; changed && open > 0; {
		changed = false
		share := left / open
		for i, w := range natural {
			if !fixed[i] && max(w, 1) <= share {
				fixed[i], out[i] = true, max(w, 1)
				left -= out[i]
				open--
				changed = true
			}
		}
	}
	if open > 0 {
		share, extra := left/open, left%open
		for i := range natural {
			if !fixed[i] {
				out[i] = max(share, 1)
				if extra > 0 && share > 0 {
					out[i]++
					extra--
				}
			}
		}
	}
	return out
}

// align pads a cell's line to width.
func align(cell []seg, width int, a gfm.Alignment) []seg {
	gap := width - segsWidth(cell)
	if gap <= 0 {
		return cell
	}
	left := 0
	switch a {
	case gfm.AlignRight:
		left = gap
	case gfm.AlignCenter:
		left = gap / 2
	}
	out := make([]seg, 0, len(cell)+2)
	if left > 0 {
		out = append(out, seg{text: strings.Repeat(" ", left)})
	}
	out = append(out, cell...)
	if gap-left > 0 {
		out = append(out, seg{text: strings.Repeat(" ", gap-left)})
	}
	return out
}
