package gfm

import "strings"

// The block parser follows CommonMark's parsing strategy: each line is
// matched against the open containers from the document down (a block
// quote wants a '>', a list item an indentation), then new blocks may
// start, then what is left of the line goes to the innermost open leaf,
// or to the open paragraph as a lazy continuation line. Paragraphs are
// finished when they close: link reference definitions are taken from
// their start and GFM tables made of their lines. Each line is looked at
// a bounded number of times per open container.

// openState is what an open block needs to match further lines; nil
// once the block is closed.
type openState struct {
	lines []string // a leaf's lines
	// inert marks a paragraph's lines that could not start a block where
	// they stand (indented four columns or more, or lazy continuation
	// lines): GFM does not take them as a table's delimiter row.
	inert []bool
	// table is set once a paragraph's lines hold a table's header and
	// delimiter row: a lazy continuation line then ends it, as it ends
	// GFM's table.
	table bool

	// A list item's content column: markerOffset+padding.
	markerOffset, padding int

	// A fenced code block's fence.
	fenceChar             byte
	fenceLen, fenceOffset int
	infoDone              bool // the fence's line was taken as the info string

	htmlType int // an HTML block's start condition, 1 to 7
}

// ref is a link reference definition.
type ref struct{ dest, title string }

type parser struct {
	doc, tip *Node
	nodes    []Node // the chunk new nodes come from
	refs     map[string]ref

	// The line being parsed.
	line                 string
	lineNo               int
	offset, column       int
	nextNonspace         int
	nextNonspaceColumn   int
	indent               int
	indented, blank      bool
	partiallyConsumedTab bool

	// oldtip is the tip before the line; lastMatched the innermost
	// container the line matched; allClosed is set once the unmatched
	// containers are closed.
	oldtip, lastMatched *Node
	allClosed           bool
}

// Parse parses Markdown (CommonMark with GFM's tables, strikethrough,
// task list items and bare URLs) into a document.
func Parse(src string) *Node {
	if strings.IndexByte(src, '\r') >= 0 {
		src = strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
	}
	if strings.IndexByte(src, 0) >= 0 {
		src = strings.ReplaceAll(src, "\x00", "\uFFFD")
	}
	p := &parser{}
	doc := p.newNode(Node{Kind: Document})
	doc.st = &openState{}
	p.doc, p.tip = doc, doc
	for len(src) > 0 {
		i := strings.IndexByte(src, '\n')
		if i < 0 {
			i = len(src)
		}
		p.incorporateLine(src[:i])
		src = src[min(i+1, len(src)):]
	}
	for p.tip != nil {
		p.finalize(p.tip)
	}
	p.inlines(doc)
	return doc
}

// newNode returns a copy of n. Nodes are allocated in chunks: a
// document is thousands of small nodes, allocated and freed together.
func (p *parser) newNode(n Node) *Node {
	if len(p.nodes) == cap(p.nodes) {
		p.nodes = make([]Node, 0, min(max(2*cap(p.nodes), 16), 1024))
	}
	p.nodes = append(p.nodes, n)
	return &p.nodes[len(p.nodes)-1]
}

func isSpaceOrTab(c byte) bool { return c == ' ' || c == '\t' }

// peek is the byte at i of the line, or 0 past its end.
func (p *parser) peek(i int) byte {
	if i < len(p.line) {
		return p.line[i]
	}
	return 0
}

func (p *parser) findNextNonspace() {
	i, cols := p.offset, p.column
	for i < len(p.line) {
		switch p.line[i] {
		case ' ':
			i++
			cols++
			continue
		case '\t':
			i++
			cols += 4 - cols%4
			continue
		}
		break
	}
	p.blank = i >= len(p.line)
	p.nextNonspace, p.nextNonspaceColumn = i, cols
	p.indent = cols - p.column
	p.indented = p.indent >= 4
}

func (p *parser) advanceNextNonspace() {
	p.offset, p.column = p.nextNonspace, p.nextNonspaceColumn
	p.partiallyConsumedTab = false
}

// advanceOffset moves count bytes on, or count columns (a tab may then be
// consumed in part).
func (p *parser) advanceOffset(count int, columns bool) {
	for count > 0 && p.offset < len(p.line) {
		if p.line[p.offset] != '\t' {
			p.partiallyConsumedTab = false
			p.offset++
			p.column++
			count--
			continue
		}
		toTab := 4 - p.column%4
		if !columns {
			p.partiallyConsumedTab = false
			p.column += toTab
			p.offset++
			count--
			continue
		}
		p.partiallyConsumedTab = toTab > count
		n := min(toTab, count)
		p.column += n
		if !p.partiallyConsumedTab {
			p.offset++
		}
		count -= n
	}
}

// markLine records that n, and so its ancestors, have content on the
// current line.
func (p *parser) markLine(n *Node) {
	for ; n != nil && n.line1 < p.lineNo; n = n.Parent {
		n.line1 = p.lineNo
	}
}

func (p *parser) incorporateLine(line string) {
	p.line = line
	p.lineNo++
	p.offset, p.column = 0, 0
	p.blank, p.partiallyConsumedTab = false, false
	p.oldtip = p.tip

	// 1. The open containers the line continues.
	container := p.doc
	for {
		last := container.LastChild
		if last == nil || last.st == nil {
			break
		}
		p.findNextNonspace()
		switch p.continues(last) {
		case matched:
			container = last
			continue
		case lineDone:
			return
		}
		break
	}
	p.allClosed = container == p.oldtip
	p.lastMatched = container

	// 2. New blocks.
	matchedLeaf := container.Kind == CodeBlock || container.Kind == HTMLBlock
	for !matchedLeaf {
		p.findNextNonspace()
		if !p.indented && !maybeSpecial(p.peek(p.nextNonspace)) {
			p.advanceNextNonspace()
			break
		}
		res := p.blockStart(container)
		if res == noStart {
			p.advanceNextNonspace()
			break
		}
		container = p.tip
		if res == leafStarted {
			matchedLeaf = true
		}
	}

	// 3. The rest of the line.
	if !p.allClosed && !p.blank && p.tip.Kind == Paragraph && !p.tip.st.table {
		p.addLine() // a lazy continuation line
		st := p.tip.st
		st.inert[len(st.inert)-1] = true
		st.table = false // it was unset to come here; a lazy line is no delimiter row
		p.markLine(p.tip)
		return
	}
	p.closeUnmatchedBlocks()
	switch container.Kind {
	case Paragraph, CodeBlock, HTMLBlock:
		p.addLine()
		st := container.st
		if container.Kind == HTMLBlock && st.htmlType <= 5 && htmlBlockEnds(st.htmlType, p.line[min(p.offset, len(p.line)):]) {
			p.markLine(container)
			p.finalize(container)
			return
		}
		if !p.blank || container.Kind != Paragraph && !(container.Kind == CodeBlock && !container.Fenced) {
			p.markLine(container)
		}
	default:
		if p.offset < len(p.line) && !p.blank {
			para := p.addChild(Paragraph)
			p.advanceNextNonspace()
			p.addLine()
			p.markLine(para)
		} else {
			p.markLine(p.deepestMarked(container))
		}
	}
}

// deepestMarked is the container whose own marker is on a line that is
// otherwise blank: the line counts as content for it and the containers
// around it (a "- " item's first line, a ">" line).
func (p *parser) deepestMarked(container *Node) *Node {
	for n := container; n != nil; n = n.Parent {
		if n.line0 == p.lineNo || n.Kind == Blockquote {
			return n
		}
	}
	return nil
}

// The results of matching a line against an open block.
const (
	matched = iota
	notMatched
	lineDone // the line closed the block (a closing fence)
)

func (p *parser) continues(n *Node) int {
	st := n.st
	switch n.Kind {
	case Blockquote:
		if p.indented || p.peek(p.nextNonspace) != '>' {
			return notMatched
		}
		p.advanceNextNonspace()
		p.advanceOffset(1, false)
		if isSpaceOrTab(p.peek(p.offset)) {
			p.advanceOffset(1, true)
		}
		p.markLine(n)
		return matched
	case ListItem:
		switch {
		case p.blank:
			if n.FirstChild == nil {
				return notMatched // an item starts with at most one blank line
			}
			p.advanceNextNonspace()
		case p.indent >= st.markerOffset+st.padding:
			p.advanceOffset(st.markerOffset+st.padding, true)
		default:
			return notMatched
		}
		return matched
	case List, Document:
		return matched
	case CodeBlock:
		if n.Fenced {
			if !p.indented && p.peek(p.nextNonspace) == st.fenceChar && closesFence(p.line[p.nextNonspace:], st.fenceChar, st.fenceLen) {
				p.markLine(n)
				p.finalize(n)
				return lineDone
			}
			for i := st.fenceOffset; i > 0 && isSpaceOrTab(p.peek(p.offset)); i-- {
				p.advanceOffset(1, true)
			}
			return matched
		}
		switch {
		case p.indent >= 4:
			p.advanceOffset(4, true)
		case p.blank:
			p.advanceNextNonspace()
		default:
			return notMatched
		}
		return matched
	case HTMLBlock:
		if p.blank && st.htmlType >= 6 {
			return notMatched
		}
		return matched
	case Paragraph:
		if p.blank {
			return notMatched
		}
		return matched
	}
	return notMatched
}

// closesFence reports whether s is a closing fence of at least n c's.
func closesFence(s string, c byte, n int) bool {
	k := 0
	for k < len(s) && s[k] == c {
		k++
	}
	return k >= n && strings.Trim(s[k:], " \t") == ""
}

// maybeSpecial reports whether a line starting with c may start a block
// other than a paragraph.
func maybeSpecial(c byte) bool {
	switch c {
	case '#', '`', '~', '*', '+', '-', '_', '=', '<', '>':
		return true
	}
	return c >= '0' && c <= '9'
}

// The results of trying block starts.
const (
	noStart = iota
	containerStarted
	leafStarted
)

func (p *parser) blockStart(container *Node) int {
	rest := p.line[p.nextNonspace:]
	c := p.peek(p.nextNonspace)
	if !p.indented {
		switch c {
		case '>':
			p.advanceNextNonspace()
			p.advanceOffset(1, false)
			if isSpaceOrTab(p.peek(p.offset)) {
				p.advanceOffset(1, true)
			}
			p.closeUnmatchedBlocks()
			q := p.addChild(Blockquote)
			p.markLine(q)
			return containerStarted
		case '#':
			if level := atxLevel(rest); level > 0 {
				p.advanceNextNonspace()
				p.advanceOffset(level, false)
				p.closeUnmatchedBlocks()
				h := p.addChild(Heading)
				h.Level = level
				h.Text = atxContent(p.line[p.offset:])
				p.markLine(h)
				p.offset = len(p.line)
				return leafStarted
			}
		case '`', '~':
			if n := openingFence(rest); n > 0 {
				p.closeUnmatchedBlocks()
				code := p.addChild(CodeBlock)
				code.Fenced = true
				code.Info = strings.Trim(rest[n:], " \t")
				st := code.st
				st.fenceChar, st.fenceLen, st.fenceOffset = c, n, p.indent
				p.markLine(code)
				p.advanceNextNonspace()
				p.offset, p.partiallyConsumedTab = len(p.line), false
				return leafStarted
			}
		case '<':
			interrupt := container.Kind != Paragraph && !(!p.allClosed && !p.blank && p.tip.Kind == Paragraph)
			if t := htmlBlockStart(rest, interrupt); t > 0 {
				p.closeUnmatchedBlocks()
				h := p.addChild(HTMLBlock)
				h.st.htmlType = t
				return leafStarted
			}
		}
		if (c == '=' || c == '-') && container.Kind == Paragraph && setextUnderline(rest) {
			switch p.setext(container, c) {
			case leafStarted:
				return leafStarted
			case containerStarted:
				// The paragraph became a table and is closed: the line
				// is tried again in the container around it.
				return containerStarted
			}
		}
		if thematicBreak(rest) {
			p.closeUnmatchedBlocks()
			hr := p.addChild(ThematicBreak)
			p.markLine(hr)
			p.offset = len(p.line)
			return leafStarted
		}
	}
	if !p.indented || container.Kind == List {
		if item := p.listItem(container); item != noStart {
			return item
		}
	}
	if p.indented && p.tip.Kind != Paragraph && !p.blank {
		p.advanceOffset(4, true)
		p.closeUnmatchedBlocks()
		p.addChild(CodeBlock)
		return leafStarted
	}
	return noStart
}

// setext turns the paragraph into a heading when what is left of it after
// its link reference definitions is not a table (containerStarted then:
// the paragraph was closed).
func (p *parser) setext(para *Node, c byte) int {
	p.closeUnmatchedBlocks()
	st := para.st
	st.lines = p.takeRefs(st.lines)
	st.inert = st.inert[len(st.inert)-len(st.lines):]
	if len(st.lines) == 0 {
		return noStart
	}
	if tableAt(st.lines, st.inert) > 0 {
		p.finalize(para)
		return containerStarted
	}
	h := p.newNode(Node{Kind: Heading, Level: 1, line0: para.line0})
	if c == '-' {
		h.Level = 2
	}
	h.Text = paragraphText(st.lines)
	para.insertAfter(h)
	para.Remove()
	para.st = nil
	h.st = &openState{}
	p.tip = h
	p.markLine(h)
	p.offset = len(p.line)
	return leafStarted
}

func (p *parser) listItem(container *Node) int {
	if p.indent >= 4 {
		return noStart
	}
	rest := p.line[p.nextNonspace:]
	var bullet, delim byte
	start, markerLen := 0, 0
	switch c := p.peek(p.nextNonspace); {
	case c == '*' || c == '+' || c == '-':
		bullet, markerLen = c, 1
	case c >= '0' && c <= '9':
		k := 0
		for k < len(rest) && k < 10 && rest[k] >= '0' && rest[k] <= '9' {
			start = start*10 + int(rest[k]-'0')
			k++
		}
		if k > 9 || k >= len(rest) || rest[k] != '.' && rest[k] != ')' {
			return noStart
		}
		if container.Kind == Paragraph && start != 1 {
			return noStart
		}
		delim, markerLen = rest[k], k+1
	default:
		return noStart
	}
	if markerLen < len(rest) && !isSpaceOrTab(rest[markerLen]) {
		return noStart
	}
	if container.Kind == Paragraph && strings.Trim(rest[markerLen:], " \t") == "" {
		return noStart
	}
	markerOffset := p.indent
	p.advanceNextNonspace()
	p.advanceOffset(markerLen, true)
	startCol, startOffset := p.column, p.offset
	for {
		p.advanceOffset(1, true)
		if !(p.column-startCol < 5 && isSpaceOrTab(p.peek(p.offset))) {
			break
		}
	}
	blankItem := p.offset >= len(p.line)
	spaces := p.column - startCol
	padding := markerLen + spaces
	if spaces >= 5 || spaces < 1 || blankItem {
		padding = markerLen + 1
		p.column, p.offset, p.partiallyConsumedTab = startCol, startOffset, false
		if isSpaceOrTab(p.peek(p.offset)) {
			p.advanceOffset(1, true)
		}
	}
	p.closeUnmatchedBlocks()
	ordered := delim != 0
	marker := bullet
	if ordered {
		marker = delim
	}
	if p.tip.Kind != List || p.tip.Ordered != ordered || p.tip.Marker != marker {
		list := p.addChild(List)
		list.Ordered, list.Marker, list.Start = ordered, marker, start
	}
	item := p.addChild(ListItem)
	st := item.st
	st.markerOffset, st.padding = markerOffset, padding
	p.markLine(item)
	return containerStarted
}

// atxLevel is the level of the ATX heading s opens, or 0.
func atxLevel(s string) int {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n < len(s) && !isSpaceOrTab(s[n]) {
		return 0
	}
	return n
}

// atxContent is a heading's text without its closing sequence.
func atxContent(s string) string {
	s = strings.Trim(s, " \t")
	end := len(s)
	for end > 0 && s[end-1] == '#' {
		end--
	}
	switch {
	case end == 0:
		return ""
	case end < len(s) && isSpaceOrTab(s[end-1]):
		return strings.TrimRight(s[:end], " \t")
	}
	return s
}

// openingFence is the length of the code fence s opens, or 0.
func openingFence(s string) int {
	c := s[0]
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	if n < 3 || c == '`' && strings.IndexByte(s[n:], '`') >= 0 {
		return 0
	}
	return n
}

func setextUnderline(s string) bool {
	c := s[0]
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return strings.Trim(s[n:], " \t") == ""
}

func thematicBreak(s string) bool {
	c := s[0]
	if c != '*' && c != '-' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

func canContain(parent, child Kind) bool {
	switch parent {
	case Document, Blockquote, ListItem:
		return child != ListItem
	case List:
		return child == ListItem
	}
	return false
}

func (p *parser) addChild(k Kind) *Node {
	for !canContain(p.tip.Kind, k) {
		p.finalize(p.tip)
	}
	n := p.newNode(Node{Kind: k, line0: p.lineNo})
	p.tip.AppendChild(n)
	p.tip = n
	n.st = &openState{}
	return n
}

// addLine adds the rest of the line to the tip, a leaf.
func (p *parser) addLine() {
	st := p.tip.st
	rest := p.line[min(p.offset, len(p.line)):]
	switch {
	case p.tip.Kind == Paragraph:
		st.lines = append(st.lines, strings.TrimLeft(rest, " \t"))
		st.inert = append(st.inert, p.indented)
		st.table = st.table || holdsTable(st)
		return
	case p.tip.Fenced && !st.infoDone:
		st.infoDone = true // the opening fence's line
		return
	}
	if p.partiallyConsumedTab {
		rest = strings.Repeat(" ", 4-p.column%4) + p.line[p.offset+1:]
	}
	st.lines = append(st.lines, rest)
}

func (p *parser) closeUnmatchedBlocks() {
	if p.allClosed {
		return
	}
	for p.oldtip != p.lastMatched {
		parent := p.oldtip.Parent
		p.finalize(p.oldtip)
		p.oldtip = parent
	}
	p.allClosed = true
}

// finalize closes block n; its parent becomes the tip.
func (p *parser) finalize(n *Node) {
	st := n.st
	n.st = nil
	p.tip = n.Parent
	if st == nil {
		return
	}
	switch n.Kind {
	case Paragraph:
		lines := p.takeRefs(st.lines)
		if len(lines) == 0 {
			if prev := n.Prev; prev != nil && n.line0 > prev.line1+1 {
				prev.blankAfter = true
			}
			n.Remove()
			return
		}
		if i := tableAt(lines, st.inert[len(st.inert)-len(lines):]); i > 0 {
			t := p.makeTable(lines, i)
			t.line0, t.line1 = n.line0+len(st.lines)-len(lines)+i-1, n.line1
			n.insertAfter(t)
			if i == 1 {
				n.Remove()
				return
			}
			lines = lines[:i-1]
			n.line1 = t.line0 - 1
		}
		n.Text = paragraphText(lines)
	case CodeBlock:
		lines := st.lines
		if !n.Fenced {
			for len(lines) > 0 && strings.Trim(lines[len(lines)-1], " \t") == "" {
				lines = lines[:len(lines)-1]
			}
		}
		n.Text = joinLines(lines)
	case HTMLBlock:
		n.Text = joinLines(st.lines)
	case Heading:
		// Its text was set when it opened.
	case List:
		n.Tight = tight(n)
	}
}

// holdsTable reports whether the last line of a paragraph is the
// delimiter row of a table whose header is the line before it. A header
// starting with '[' does not count: it may be a link reference
// definition, which is not a table's (finalize decides then).
func holdsTable(st *openState) bool {
	n := len(st.lines)
	if n < 2 || st.inert[n-1] || strings.HasPrefix(st.lines[n-2], "[") {
		return false
	}
	aligns := delimiterRow(st.lines[n-1])
	return aligns != nil && len(splitRow(st.lines[n-2])) == len(aligns)
}

// paragraphText is the inline content of a paragraph's lines.
func paragraphText(lines []string) string {
	return strings.TrimRight(strings.Join(lines, "\n"), " \t")
}

// joinLines joins lines, each ending in "\n".
func joinLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// tight reports whether no blank line separates a list's items or the
// children of one, or follows a child that something in the list follows.
func tight(list *Node) bool {
	for item := list.FirstChild; item != nil; item = item.Next {
		if item.Next != nil && item.Next.line0 > item.line1+1 {
			return false
		}
		for c := item.FirstChild; c != nil; c = c.Next {
			if c.Next != nil && c.Next.line0 > c.line1+1 {
				return false
			}
			if (c.Next != nil || item.Next != nil) && endsWithBlank(c) {
				return false
			}
		}
	}
	return true
}

// endsWithBlank reports whether a blank line that only link reference
// definitions followed ends n, or the last item of n (a list) or the
// last child of n (an item), as CommonMark's reference parser sees it.
func endsWithBlank(n *Node) bool {
	for ; n != nil; n = n.LastChild {
		if n.blankAfter {
			return true
		}
		if n.Kind != List && n.Kind != ListItem {
			return false
		}
	}
	return false
}

// inlines parses the inline content of the blocks under n.
func (p *parser) inlines(n *Node) {
	for c := n.FirstChild; c != nil; c = c.Next {
		switch c.Kind {
		case Paragraph, Heading:
			task := c.Kind == Paragraph && c.Parent.Kind == ListItem && c.Parent.FirstChild == c
			p.parseInlines(c, c.Text, task, false)
			c.Text = ""
		case TableCell:
			p.parseInlines(c, c.Text, false, true)
			c.Text = ""
		case CodeBlock, HTMLBlock, ThematicBreak:
		default:
			p.inlines(c)
		}
	}
}
