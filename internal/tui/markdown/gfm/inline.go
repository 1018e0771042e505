package gfm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The inline parser makes one pass over a block's text. Runs of '*', '_'
// and '~' become delimiters and brackets open links; a closing bracket
// makes a link or an image with what follows it, and emphasis is matched
// by CommonMark's "process emphasis" procedure, with its openers_bottom
// bound so that a closer that matched nothing is not searched for again
// past where it failed (without it, " *a" n times then " a_" n times is
// quadratic). Code spans find their closer through an index of backtick
// runs; the bracket stack deactivates the link openers under a new link
// by a mark, not one by one; raw HTML remembers the kinds of construct
// that have no end in the rest of the text.

// delim is an entry of the delimiter stack: a run of '*', '_' or '~'.
type delim struct {
	c                 byte
	n, orig           int // the run's length now and as written
	node              *Node
	canOpen, canClose bool
	prev, next        *delim
}

// bracket is an entry of the bracket stack: a '[' or '!['.
type bracket struct {
	node  *Node
	image bool
	// start is where the text inside the brackets starts.
	start int
	// inner is set when another bracket opened after this one: the text
	// cannot be a link label then.
	inner bool
	// delims is the top of the delimiter stack when it opened.
	delims *delim
}

type inlineParser struct {
	p     *parser
	s     string
	pos   int
	block *Node
	// text holds literal text not yet made a Text node.
	text strings.Builder

	delims   *delim // the top of the delimiter stack
	brackets []bracket
	// linkBottom: link openers below this index of brackets are inactive
	// (a link may not contain a link).
	linkBottom int
	inCell     bool
	// escaped is the end of the last backslash escape.
	escaped int

	// The backtick runs of s, by length, and how far each list was used.
	ticks    map[int][]int
	tickNext map[int]int
	// noEnd[k] is set when a raw HTML construct of kind k has no end
	// after noEndFrom[k].
	noEndFrom [4]int
}

// The raw HTML constructs whose end is searched for.
const (
	endComment = iota
	endPI
	endCDATA
	endDecl
)

func (p *parser) parseInlines(block *Node, s string, task, inCell bool) {
	ip := &inlineParser{p: p, s: s, block: block, inCell: inCell, escaped: -1}
	for i := range ip.noEndFrom {
		ip.noEndFrom[i] = -1
	}
	if task && len(s) >= 4 && s[0] == '[' && s[2] == ']' && isSpaceOrTab(s[3]) && (s[1] == ' ' || s[1] == 'x' || s[1] == 'X') {
		block.AppendChild(ip.p.newNode(Node{Kind: TaskCheckBox, Checked: s[1] != ' '}))
		ip.pos = 4
		for ip.pos < len(s) && isSpaceOrTab(s[ip.pos]) {
			ip.pos++
		}
	}
	ip.run()
}

func (ip *inlineParser) run() {
	s := ip.s
	for ip.pos < len(s) {
		c := s[ip.pos]
		switch c {
		case '\n':
			ip.lineBreak()
		case '\\':
			ip.backslash()
		case '`':
			ip.backticks()
		case '*', '_', '~':
			ip.delimRun(c)
		case '[':
			ip.openBracket(false)
		case '!':
			if ip.pos+1 < len(s) && s[ip.pos+1] == '[' {
				ip.openBracket(true)
			} else {
				ip.text.WriteByte(c)
				ip.pos++
			}
		case ']':
			ip.closeBracket()
		case '<':
			if !ip.autolink() && !ip.rawHTML() {
				ip.text.WriteByte(c)
				ip.pos++
			}
		case '&':
			if t, n := entity(s[ip.pos:]); n > 0 {
				ip.text.WriteString(t)
				ip.pos += n
			} else {
				ip.text.WriteByte(c)
				ip.pos++
			}
		default:
			if (c == 'h' || c == 'f' || c == 'w') && ip.urlMayStart() && ip.bareURL() {
				continue
			}
			ip.plain()
		}
	}
	ip.flush()
	ip.processEmphasis(nil)
}

// plain takes text up to the next byte that may start something.
func (ip *inlineParser) plain() {
	s := ip.s
	i := ip.pos + 1
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case '\n', '\\', '`', '*', '_', '~', '[', '!', ']', '<', '&':
		case 'h', 'f', 'w':
			if !urlBoundary(s[i-1]) {
				continue
			}
		default:
			continue
		}
		break
	}
	ip.text.WriteString(s[ip.pos:i])
	ip.pos = i
}

// flush makes the pending text a Text node.
func (ip *inlineParser) flush() {
	if ip.text.Len() > 0 {
		ip.block.AppendChild(ip.p.newNode(Node{Kind: Text, Text: ip.text.String()}))
		ip.text.Reset()
	}
}

func (ip *inlineParser) add(n *Node) {
	ip.flush()
	ip.block.AppendChild(n)
}

// lineBreak ends a line: a hard break after two spaces, else a soft one.
func (ip *inlineParser) lineBreak() {
	t := ip.text.String()
	trimmed := strings.TrimRight(t, " ")
	kind := SoftBreak
	if len(t)-len(trimmed) >= 2 {
		kind = HardBreak
	}
	if len(trimmed) != len(t) {
		ip.text.Reset()
		ip.text.WriteString(trimmed)
	}
	ip.add(ip.p.newNode(Node{Kind: kind}))
	ip.pos++
	ip.skipIndent()
}

// skipIndent skips the spaces at the start of a line.
func (ip *inlineParser) skipIndent() {
	for ip.pos < len(ip.s) && isSpaceOrTab(ip.s[ip.pos]) {
		ip.pos++
	}
}

func (ip *inlineParser) backslash() {
	s := ip.s
	switch {
	case ip.pos+1 < len(s) && s[ip.pos+1] == '\n':
		ip.add(ip.p.newNode(Node{Kind: HardBreak}))
		ip.pos += 2
		ip.skipIndent()
	case ip.pos+1 < len(s) && isASCIIPunct(s[ip.pos+1]):
		ip.text.WriteByte(s[ip.pos+1])
		ip.pos += 2
		ip.escaped = ip.pos
	default:
		ip.text.WriteByte('\\')
		ip.pos++
	}
}

// backticks reads a code span, or the run of backticks as text when no
// run of the same length closes it.
func (ip *inlineParser) backticks() {
	s := ip.s
	start := ip.pos
	end := start
	for end < len(s) && s[end] == '`' {
		end++
	}
	n := end - start
	closer := ip.closingTicks(end, n)
	if closer < 0 {
		ip.text.WriteString(s[start:end])
		ip.pos = end
		return
	}
	code := s[end:closer]
	code = strings.ReplaceAll(code, "\n", " ")
	if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
		code = code[1 : len(code)-1]
	}
	if ip.inCell {
		code = strings.ReplaceAll(code, `\|`, "|")
	}
	ip.add(ip.p.newNode(Node{Kind: CodeSpan, Text: code}))
	ip.pos = closer + n
}

// closingTicks finds the first run of exactly n backticks at or after
// from, or -1. The runs are indexed on first use; each length's list is
// walked forward only, as the parser moves forward.
func (ip *inlineParser) closingTicks(from, n int) int {
	if ip.ticks == nil {
		ip.ticks = map[int][]int{}
		ip.tickNext = map[int]int{}
		s := ip.s
		for i := 0; i < len(s); {
			if s[i] != '`' {
				i++
				continue
			}
			j := i
			for j < len(s) && s[j] == '`' {
				j++
			}
			ip.ticks[j-i] = append(ip.ticks[j-i], i)
			i = j
		}
	}
	runs := ip.ticks[n]
	k := ip.tickNext[n]
	for k < len(runs) && runs[k] < from {
		k++
	}
	ip.tickNext[n] = k
	if k < len(runs) {
		return runs[k]
	}
	return -1
}

// runeBefore and runeAfter are the characters around s[i:j]; a line's
// start or end counts as a newline.
func (ip *inlineParser) runeBefore(i int) rune {
	if i == 0 {
		return '\n'
	}
	r, _ := utf8.DecodeLastRuneInString(ip.s[:i])
	return r
}

func (ip *inlineParser) runeAfter(j int) rune {
	if j >= len(ip.s) {
		return '\n'
	}
	r, _ := utf8.DecodeRuneInString(ip.s[j:])
	return r
}

func isUnicodeSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r' || r == '\v' || r >= 0x80 && unicode.Is(unicode.Zs, r)
}

func isUnicodePunct(r rune) bool {
	if r < 0x80 {
		return isASCIIPunct(byte(r))
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

// delimRun reads a run of '*', '_' or '~'.
func (ip *inlineParser) delimRun(c byte) {
	s := ip.s
	start := ip.pos
	end := start
	for end < len(s) && s[end] == c {
		end++
	}
	n := end - start
	ip.pos = end
	before, after := ip.runeBefore(start), ip.runeAfter(end)
	spaceBefore, spaceAfter := isUnicodeSpace(before), isUnicodeSpace(after)
	punctBefore, punctAfter := isUnicodePunct(before), isUnicodePunct(after)
	left := !spaceAfter && (!punctAfter || spaceBefore || punctBefore)
	right := !spaceBefore && (!punctBefore || spaceAfter || punctAfter)
	canOpen, canClose := left, right
	if c == '_' {
		canOpen = left && (!right || punctBefore)
		canClose = right && (!left || punctAfter)
	}
	if c == '~' && n > 2 || !canOpen && !canClose {
		ip.text.WriteString(s[start:end])
		return
	}
	node := ip.p.newNode(Node{Kind: Text, Text: s[start:end]})
	ip.add(node)
	d := &delim{c: c, n: n, orig: n, node: node, canOpen: canOpen, canClose: canClose, prev: ip.delims}
	if ip.delims != nil {
		ip.delims.next = d
	}
	ip.delims = d
}

func (ip *inlineParser) removeDelim(d *delim) {
	if d.prev != nil {
		d.prev.next = d.next
	}
	if d.next != nil {
		d.next.prev = d.prev
	} else {
		ip.delims = d.prev
	}
}

// delimKind indexes openersBottom: the character, whether the closer can
// open too, and its length modulo 3 (for '~', its length).
func delimKind(d *delim) (int, int) {
	c := 0
	switch d.c {
	case '_':
		c = 1
	case '~':
		c = 2
	}
	k := d.orig % 3
	if d.canOpen {
		k += 3
	}
	return c, k
}

// processEmphasis matches the delimiters above bottom, innermost first,
// and removes them from the stack.
func (ip *inlineParser) processEmphasis(bottom *delim) {
	var openersBottom [3][6]*delim
	for i := range openersBottom {
		for j := range openersBottom[i] {
			openersBottom[i][j] = bottom
		}
	}
	// The first delimiter above bottom.
	if ip.delims == bottom {
		return
	}
	closer := ip.delims
	for closer != nil && closer.prev != bottom {
		closer = closer.prev
	}
	for closer != nil {
		if !closer.canClose {
			closer = closer.next
			continue
		}
		ci, ki := delimKind(closer)
		opener := closer.prev
		found := false
		for opener != nil && opener != bottom && opener != openersBottom[ci][ki] {
			if opener.c == closer.c && opener.canOpen {
				if closer.c == '~' {
					found = opener.orig == closer.orig
				} else {
					odd := (closer.canOpen || opener.canClose) && closer.orig%3 != 0 && (opener.orig+closer.orig)%3 == 0
					found = !odd
				}
				if found {
					break
				}
			}
			opener = opener.prev
		}
		if !found {
			openersBottom[ci][ki] = closer.prev
			next := closer.next
			if !closer.canOpen {
				ip.removeDelim(closer)
			}
			closer = next
			continue
		}
		use := 1
		kind := Emphasis
		switch {
		case closer.c == '~':
			use, kind = closer.n, Strikethrough
		case closer.n >= 2 && opener.n >= 2:
			use = 2
		}
		opener.n -= use
		closer.n -= use
		opener.node.Text = opener.node.Text[:opener.n]
		closer.node.Text = closer.node.Text[:closer.n]
		wrap := ip.p.newNode(Node{Kind: kind, Level: use})
		for n := opener.node.Next; n != closer.node; {
			next := n.Next
			n.Remove()
			wrap.AppendChild(n)
			n = next
		}
		opener.node.insertAfter(wrap)
		// The delimiters between them can match nothing now.
		opener.next = closer
		closer.prev = opener
		if opener.n == 0 {
			opener.node.Remove()
			ip.removeDelim(opener)
		}
		if closer.n == 0 {
			next := closer.next
			closer.node.Remove()
			ip.removeDelim(closer)
			closer = next
		}
	}
	// Everything above bottom is done.
	for ip.delims != bottom && ip.delims != nil {
		ip.removeDelim(ip.delims)
	}
}

func (ip *inlineParser) openBracket(image bool) {
	text := "["
	if image {
		text = "!["
	}
	node := ip.p.newNode(Node{Kind: Text, Text: text})
	ip.add(node)
	ip.pos += len(text)
	if len(ip.brackets) > 0 {
		ip.brackets[len(ip.brackets)-1].inner = true
	}
	ip.brackets = append(ip.brackets, bracket{node: node, image: image, start: ip.pos, delims: ip.delims})
}

func (ip *inlineParser) popBracket() {
	ip.brackets = ip.brackets[:len(ip.brackets)-1]
	ip.linkBottom = min(ip.linkBottom, len(ip.brackets))
}

// closeBracket reads a ']': a link or image when a bracket is open and
// a destination or a defined label follows, else text.
func (ip *inlineParser) closeBracket() {
	s := ip.s
	ip.pos++
	if len(ip.brackets) == 0 {
		ip.text.WriteByte(']')
		return
	}
	top := len(ip.brackets) - 1
	opener := &ip.brackets[top]
	if !opener.image && top < ip.linkBottom {
		ip.popBracket()
		ip.text.WriteByte(']')
		return
	}
	after := ip.pos
	dest, title, ok := "", "", false
	if after < len(s) && s[after] == '(' {
		dest, title, ok = ip.inlineLink(after + 1)
	}
	if !ok {
		label := ""
		n := linkLabel(s[after:])
		switch {
		case n > 2:
			label = s[after+1 : after+n-1]
		case !opener.inner:
			label = s[opener.start : after-1]
		}
		if n == 0 {
			ip.pos = after
		} else {
			ip.pos = after + n
		}
		if key := normalizeLabel(label); key != "" && len(label) <= maxLabel && ip.p.refs != nil {
			var r ref
			if r, ok = ip.p.refs[key]; ok {
				dest, title = r.dest, r.title
			}
		}
		if !ok {
			ip.pos = after
		}
	}
	if !ok {
		ip.popBracket()
		ip.text.WriteByte(']')
		return
	}
	ip.flush()
	kind := Link
	if opener.image {
		kind = Image
	}
	link := ip.p.newNode(Node{Kind: kind, Dest: dest, Title: title})
	for n := opener.node.Next; n != nil; {
		next := n.Next
		n.Remove()
		link.AppendChild(n)
		n = next
	}
	ip.block.AppendChild(link)
	ip.processEmphasis(opener.delims)
	opener.node.Remove()
	ip.popBracket()
	if !opener.image {
		ip.linkBottom = len(ip.brackets)
	}
	// processEmphasis worked on the link's children: its parent is the
	// block, whose inlines go on.
}

// inlineLink parses "(dest "title")" from i, after the '('; on success
// the parser moves past the ')'.
func (ip *inlineParser) inlineLink(i int) (dest, title string, ok bool) {
	s := ip.s
	i = spnl(s, i)
	dest, n, ok := linkDest(s[i:])
	if !ok {
		return "", "", false
	}
	i += n
	j := spnl(s, i)
	if j > i {
		if t, tn, ok := linkTitle(s[j:]); ok {
			title = t
			j = spnl(s, j+tn)
		}
	}
	if j >= len(s) || s[j] != ')' {
		return "", "", false
	}
	ip.pos = j + 1
	return dest, title, true
}

// autolink reads "<scheme:…>" or "<address@domain>".
func (ip *inlineParser) autolink() bool {
	s := ip.s[ip.pos:]
	if n := uriAutolink(s); n > 0 {
		u := s[1 : n-1]
		ip.add(ip.p.newNode(Node{Kind: AutoLink, Dest: u, Text: u}))
		ip.pos += n
		return true
	}
	if n := emailAutolink(s); n > 0 {
		a := s[1 : n-1]
		ip.add(ip.p.newNode(Node{Kind: AutoLink, Dest: "mailto:" + a, Text: a}))
		ip.pos += n
		return true
	}
	return false
}

func uriAutolink(s string) int {
	i := 1
	for i < len(s) && (isAlnum(s[i]) || i > 1 && (s[i] == '+' || s[i] == '.' || s[i] == '-')) {
		if i == 1 && !isLetter(s[i]) {
			return 0
		}
		i++
	}
	if i-1 < 2 || i-1 > 32 || i >= len(s) || s[i] != ':' {
		return 0
	}
	for i++; i < len(s); i++ {
		switch c := s[i]; {
		case c == '>':
			return i + 1
		case c <= ' ' || c == '<' || c == 0x7f:
			return 0
		}
	}
	return 0
}

func emailAutolink(s string) int {
	i := 1
	for i < len(s) && (isAlnum(s[i]) || strings.IndexByte(".!#$%&'*+/=?^_`{|}~-", s[i]) >= 0) {
		i++
	}
	if i == 1 || i >= len(s) || s[i] != '@' {
		return 0
	}
	i++
	for {
		// A label: alphanumerics and '-', not at either end, at most 63.
		start := i
		for i < len(s) && (isAlnum(s[i]) || s[i] == '-') && i-start < 63 {
			i++
		}
		if i == start || s[start] == '-' || s[i-1] == '-' {
			return 0
		}
		if i < len(s) && s[i] == '.' {
			i++
			continue
		}
		if i < len(s) && s[i] == '>' {
			return i + 1
		}
		return 0
	}
}

// rawHTML reads an inline tag, comment, processing instruction,
// declaration or CDATA section, kept as text.
func (ip *inlineParser) rawHTML() bool {
	s := ip.s[ip.pos:]
	n := 0
	switch {
	case len(s) < 2:
	case s[1] == '/':
		n = closingTag(s)
	case isLetter(s[1]):
		n = openTag(s)
	case strings.HasPrefix(s, "<!--"):
		if strings.HasPrefix(s, "<!-->") {
			n = 5
		} else if strings.HasPrefix(s, "<!--->") {
			n = 6
		} else {
			n = ip.until(endComment, 4, "-->")
		}
	case strings.HasPrefix(s, "<?"):
		n = ip.until(endPI, 2, "?>")
	case strings.HasPrefix(s, "<![CDATA["):
		n = ip.until(endCDATA, 9, "]]>")
	case s[1] == '!' && len(s) > 2 && isLetter(s[2]):
		n = ip.until(endDecl, 2, ">")
	}
	if n == 0 {
		return false
	}
	ip.add(ip.p.newNode(Node{Kind: RawHTML, Text: s[:n]}))
	ip.pos += n
	return true
}

// until returns the length of the construct from the parser's position
// to the end marker searched from skip bytes on, or 0. A search that
// fails is remembered: later ones of the same kind fail at once.
func (ip *inlineParser) until(kind, skip int, end string) int {
	if f := ip.noEndFrom[kind]; f >= 0 && ip.pos >= f {
		return 0
	}
	s := ip.s[ip.pos:]
	k := strings.Index(s[skip:], end)
	if k < 0 {
		ip.noEndFrom[kind] = ip.pos
		return 0
	}
	return skip + k + len(end)
}

// urlBoundary reports whether a bare URL may start after c.
func urlBoundary(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\f', '\v', '*', '_', '~', '(':
		return true
	}
	return false
}

// urlMayStart reports whether a bare URL may start here: at the start,
// after a blank or after '*', '_', '~' or '(' not escaped, and not inside
// a link's text.
func (ip *inlineParser) urlMayStart() bool {
	if len(ip.brackets) > 0 {
		return false
	}
	return ip.pos == 0 || urlBoundary(ip.s[ip.pos-1]) && ip.escaped != ip.pos
}

// bareURL reads a bare URL as a link.
func (ip *inlineParser) bareURL() bool {
	n, www := bareURL(ip.s[ip.pos:])
	if n == 0 {
		return false
	}
	t := ip.s[ip.pos : ip.pos+n]
	dest := t
	if www {
		dest = "http://" + t
	}
	ip.add(ip.p.newNode(Node{Kind: AutoLink, Dest: dest, Text: t}))
	ip.pos += n
	return true
}
