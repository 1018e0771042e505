package gfm

// Tables are found in finished paragraphs, as GFM finds them in lines: a
// line that is a delimiter row ("| :-- | --: |"), right after a line with
// as many cells, makes that line the header and every later line of the
// paragraph a body row; the lines before the header stay a paragraph.
// Cells are split at pipes not preceded by a backslash — in code spans
// too, where "\|" then stands for a bare pipe (the inline parser drops
// the backslash in a cell's code spans). A body row with fewer cells gets
// empty ones, one with more loses the extra. Each line is scanned at most
// twice: once as a delimiter row candidate, once split into cells.

// tableAt returns the index of the delimiter row of the table in a
// paragraph's lines (at least 1: the header is above it), or 0. A line
// marked inert (indented four columns or more, or lazy) is no delimiter
// row: GFM looks for one only where a block may start.
func tableAt(lines []string, inert []bool) int {
	for i := 1; i < len(lines); i++ {
		if inert[i] {
			continue
		}
		aligns := delimiterRow(lines[i])
		if aligns != nil && len(splitRow(lines[i-1])) == len(aligns) {
			return i
		}
	}
	return 0
}

// makeTable makes the table whose delimiter row is lines[i].
func (p *parser) makeTable(lines []string, i int) *Node {
	aligns := delimiterRow(lines[i])
	table := p.newNode(Node{Kind: Table, Aligns: aligns})
	table.AppendChild(p.row(TableHeader, splitRow(lines[i-1]), aligns))
	for _, l := range lines[i+1:] {
		table.AppendChild(p.row(TableRow, splitRow(l), aligns))
	}
	return table
}

// row makes a row of one cell per column; a cell's Text is its inline
// content, parsed with the other blocks'.
func (p *parser) row(kind Kind, cells []string, aligns []Alignment) *Node {
	r := p.newNode(Node{Kind: kind})
	for c, a := range aligns {
		cell := p.newNode(Node{Kind: TableCell, Align: a})
		if c < len(cells) {
			cell.Text = cells[c]
		}
		r.AppendChild(cell)
	}
	return r
}

// isBlank reports whether c is a space, a tab or a line ending.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// trim returns the bounds of b[i:j] without blanks at either end.
func trim(b string, i, j int) (int, int) {
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
func delimiterRow(line string) []Alignment {
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
func delimiterCell(line string, i, j int) (Alignment, bool) {
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

// splitRow splits a row's line into its cells' text, trimmed.
func splitRow(line string) []string {
	i, j := trim(line, 0, len(line))
	if i < j && line[i] == '|' {
		i++
	}
	if j > i && line[j-1] == '|' && !(j-2 >= i && line[j-2] == '\\') {
		j--
	}
	var cells []string
	start := i
	for k := i; k <= j; k++ {
		if k < j && (line[k] != '|' || k > i && line[k-1] == '\\') {
			continue
		}
		if k == j && start == j && len(cells) == 0 && i == j {
			break // an empty row: "|" or "||" has no cells
		}
		a, b := trim(line, start, k)
		cells = append(cells, line[a:b])
		start = k + 1
	}
	return cells
}
