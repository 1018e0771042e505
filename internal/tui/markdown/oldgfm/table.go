package oldgfm

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Tables are found in finished paragraphs, as GFM finds them in lines: a
// line that is a delimiter row ("| :-- | --: |"), right after a line with
// as many cells, makes that line the header and every later line of the
// paragraph a body row; the lines before the header stay a paragraph.
// Cells are split at pipes not preceded by a backslash — in code spans
// too, where "\|" then stands for a bare pipe (pipeTransformer). A body
// row with fewer cells gets empty ones, one with more loses the extra.
// Each line is scanned at most twice: once as a delimiter row candidate,
// once split into cells.

type tableTransformer struct {
	// escaped keys the cells whose text holds "\|", for pipeTransformer.
	escaped parser.ContextKey
}

func (t tableTransformer) Transform(p *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := p.Lines()
	if lines.Len() < 2 {
		return
	}
	src := reader.Source()
	for i := 1; i < lines.Len(); i++ {
		line := lines.At(i)
		aligns := delimiterRow(line.Value(src))
		if aligns == nil {
			continue
		}
		head := splitRow(src, lines.At(i-1))
		if len(head) != len(aligns) {
			continue
		}
		table := &Table{Alignments: aligns}
		table.AppendChild(table, t.row(&TableHeader{}, src, head, aligns, pc))
		for j := i + 1; j < lines.Len(); j++ {
			table.AppendChild(table, t.row(&TableRow{}, src, splitRow(src, lines.At(j)), aligns, pc))
		}
		parent := p.Parent()
		parent.InsertAfter(parent, p, table)
		if i == 1 {
			parent.RemoveChild(parent, p)
		} else {
			lines.SetSliced(0, i-1)
		}
		return
	}
}

// row fills row with one cell per column.
func (t tableTransformer) row(row ast.Node, src []byte, cells []text.Segment, aligns []Alignment, pc parser.Context) ast.Node {
	for c, a := range aligns {
		cell := &TableCell{Alignment: a}
		if c < len(cells) {
			cell.Lines().Append(cells[c])
			if hasEscapedPipe(cells[c].Value(src)) {
				list, _ := pc.Get(t.escaped).([]*TableCell)
				pc.Set(t.escaped, append(list, cell))
			}
		}
		row.AppendChild(row, cell)
	}
	return row
}

func hasEscapedPipe(b []byte) bool {
	for i := 1; i < len(b); i++ {
		if b[i] == '|' && b[i-1] == '\\' {
			return true
		}
	}
	return false
}

// isBlank reports whether c is a space, a tab or a line ending.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// trim returns the bounds of b[i:j] without blanks at either end.
func trim(b []byte, i, j int) (int, int) {
	for i < j && isBlank(b[i]) {
		i++
	}
	for j > i && isBlank(b[j-1]) {
		j--
	}
	return i, j
}

// delimiterRow returns the alignments of a delimiter row, or nil when
// line is not one: cells of at least one '-' with an optional ':' at
// either end, between pipes, with leading and trailing pipes optional.
func delimiterRow(line []byte) []Alignment {
	i, j := trim(line, 0, len(line))
	// Fail fast on prose: a delimiter row has nothing but these bytes.
	for k := i; k < j; k++ {
		switch line[k] {
		case '|', '-', ':', ' ', '\t':
		default:
			return nil
		}
	}
	if i < j && line[i] == '|' {
		i++
	}
	if j > i && line[j-1] == '|' {
		j--
	}
	if i >= j {
		return nil
	}
	var aligns []Alignment
	for start := i; start <= j; {
		end := start
		for end < j && line[end] != '|' {
			end++
		}
		a, ok := delimiterCell(line, start, end)
		if !ok {
			return nil
		}
		aligns = append(aligns, a)
		start = end + 1
	}
	return aligns
}

// delimiterCell parses one cell of a delimiter row, line[i:j].
func delimiterCell(line []byte, i, j int) (Alignment, bool) {
	i, j = trim(line, i, j)
	left := i < j && line[i] == ':'
	if left {
		i++
	}
	right := j > i && line[j-1] == ':'
	if right {
		j--
	}
	if i >= j {
		return AlignNone, false
	}
	for k := i; k < j; k++ {
		if line[k] != '-' {
			return AlignNone, false
		}
	}
	switch {
	case left && right:
		return AlignCenter, true
	case left:
		return AlignLeft, true
	case right:
		return AlignRight, true
	}
	return AlignNone, true
}

// splitRow splits a row's line into the segments of its cells, trimmed.
func splitRow(src []byte, line text.Segment) []text.Segment {
	line.Padding = 0
	i, j := trim(src, line.Start, line.Stop)
	if i < j && src[i] == '|' {
		i++
	}
	if j > i && src[j-1] == '|' && !(j-2 >= i && src[j-2] == '\\') {
		j--
	}
	var cells []text.Segment
	start := i
	for k := i; k <= j; k++ {
		if k < j && (src[k] != '|' || k > i && src[k-1] == '\\') {
			continue
		}
		if k == j && start == j && len(cells) == 0 && i == j {
			break // an empty row: "|" or "||" has no cells
		}
		a, b := trim(src, start, k)
		cells = append(cells, text.NewSegment(a, b))
		start = k + 1
	}
	return cells
}

// pipeTransformer drops the backslash of "\|" in the code spans of the
// cells that have one: the pipe was escaped for the table, not for the
// code. (Outside code spans the inline parser already reads "\|" as a
// pipe.)
type pipeTransformer struct{ escaped parser.ContextKey }

func (t pipeTransformer) Transform(_ *ast.Document, reader text.Reader, pc parser.Context) {
	cells, _ := pc.Get(t.escaped).([]*TableCell)
	if cells == nil {
		return
	}
	pc.Set(t.escaped, nil)
	src := reader.Source()
	for _, cell := range cells {
		_ = ast.Walk(cell, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if code, ok := n.(*ast.CodeSpan); ok && entering {
				unescapePipes(code, src)
				return ast.WalkSkipChildren, nil
			}
			return ast.WalkContinue, nil
		})
	}
}

// unescapePipes splits the text of a code span around the backslash of
// each "\|".
func unescapePipes(code *ast.CodeSpan, src []byte) {
	for c := code.FirstChild(); c != nil; {
		next := c.NextSibling()
		t, ok := c.(*ast.Text)
		if !ok {
			c = next
			continue
		}
		seg := t.Segment
		prev := ast.Node(t)
		start := seg.Start
		for k := seg.Start + 1; k < seg.Stop; k++ {
			if src[k] == '|' && src[k-1] == '\\' {
				part := ast.NewRawTextSegment(text.NewSegment(start, k-1))
				code.InsertAfter(code, prev, part)
				prev, start = part, k
			}
		}
		if start != seg.Start {
			rest := ast.NewRawTextSegment(text.NewSegment(start, seg.Stop))
			code.InsertAfter(code, prev, rest)
			code.RemoveChild(code, t)
		}
		c = next
	}
}
