package gfm

// Kind is the kind of a Node.
type Kind uint8

// The node kinds. Block kinds first, then inline ones.
const (
	// Document is the root: its children are blocks.
	Document Kind = iota
	// Paragraph holds inlines. Paragraphs of tight lists are Paragraphs too
	// (the List says it is tight).
	Paragraph
	// Heading holds inlines; Level is 1 to 6 (ATX or setext).
	Heading
	// ThematicBreak is a rule: no children.
	ThematicBreak
	// CodeBlock is an indented or fenced code block: Text holds its lines,
	// each ending in "\n"; a fenced one has Fenced set and Info holds its
	// info string as written (trimmed, escapes not resolved).
	CodeBlock
	// HTMLBlock is raw HTML: Text holds its lines, each ending in "\n".
	HTMLBlock
	// Blockquote holds blocks.
	Blockquote
	// List holds ListItems: Ordered (with Start) or bullet; Marker is the
	// bullet ('-', '+', '*') or the ordered delimiter ('.', ')'); Tight
	// is true when no blank line separates its items or their children.
	List
	// ListItem holds blocks (none for an empty item).
	ListItem
	// Table is a GFM table: a TableHeader then TableRows, every row with
	// exactly len(Aligns) TableCells.
	Table
	// TableHeader is a table's header row.
	TableHeader
	// TableRow is a table's body row.
	TableRow
	// TableCell holds inlines; Align is its column's alignment.
	TableCell

	// Text is literal text (escapes and entity references resolved).
	Text
	// SoftBreak is a line ending inside a paragraph.
	SoftBreak
	// HardBreak is a line ending kept as one (two spaces or a backslash
	// before it).
	HardBreak
	// CodeSpan is inline code: Text holds it, line endings made spaces.
	CodeSpan
	// Emphasis holds inlines: Level 1 is emphasis, 2 strong.
	Emphasis
	// Strikethrough holds inlines (GFM's ~~ and ~).
	Strikethrough
	// Link holds its text's inlines: Dest and Title resolved.
	Link
	// Image holds its description's inlines: Dest and Title resolved.
	Image
	// AutoLink is <url>, <email> or a bare URL: Dest is the URL to follow
	// ("mailto:" added to an e-mail, "http://" to a "www." link), Text the
	// text as written.
	AutoLink
	// RawHTML is an inline HTML tag, comment or the like, as written.
	RawHTML
	// TaskCheckBox is the "[ ]" or "[x]" that starts a task list item: the
	// first child of the item's first paragraph. Checked is set for "[x]".
	TaskCheckBox
)

var kindNames = [...]string{
	Document: "Document", Paragraph: "Paragraph", Heading: "Heading", ThematicBreak: "ThematicBreak",
	CodeBlock: "CodeBlock", HTMLBlock: "HTMLBlock", Blockquote: "Blockquote", List: "List", ListItem: "ListItem",
	Table: "Table", TableHeader: "TableHeader", TableRow: "TableRow", TableCell: "TableCell",
	Text: "Text", SoftBreak: "SoftBreak", HardBreak: "HardBreak", CodeSpan: "CodeSpan", Emphasis: "Emphasis",
	Strikethrough: "Strikethrough", Link: "Link", Image: "Image", AutoLink: "AutoLink", RawHTML: "RawHTML",
	TaskCheckBox: "TaskCheckBox",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind?"
}

// IsBlock reports whether nodes of the kind are blocks.
func (k Kind) IsBlock() bool { return k < Text }

// Alignment is a table column's alignment, set by the colons of its
// delimiter row cell.
type Alignment uint8

// The alignments: ---, :---, ---: and :---:.
const (
	AlignNone Alignment = iota
	AlignLeft
	AlignRight
	AlignCenter
)

func (a Alignment) String() string {
	switch a {
	case AlignLeft:
		return "left"
	case AlignRight:
		return "right"
	case AlignCenter:
		return "center"
	}
	return "none"
}

// Node is a node of the document tree. Which fields mean something
// depends on Kind (see the kinds).
type Node struct {
	Kind Kind

	Parent, FirstChild, LastChild, Prev, Next *Node

	// Text: the text of Text, CodeSpan, RawHTML, AutoLink, CodeBlock and
	// HTMLBlock nodes.
	Text string
	// Info is a fenced code block's info string.
	Info string
	// Dest and Title are a link's or image's; Dest an AutoLink's URL.
	Dest, Title string
	// Level is a Heading's (1–6) or an Emphasis's (1 or 2).
	Level int
	// Start is an ordered List's first number.
	Start int
	// Marker is a List's bullet or ordered delimiter.
	Marker byte
	// Ordered, Tight: a List's. Fenced: a CodeBlock's. Checked: a
	// TaskCheckBox's.
	Ordered, Tight, Fenced, Checked bool
	// Align is a TableCell's alignment; Aligns a Table's columns'.
	Align  Alignment
	Aligns []Alignment

	// The lines of the source a block starts and ends on (for the
	// tightness of lists).
	line0, line1 int
	// blankAfter is set on a block followed by a blank line and then only
	// link reference definitions, which left no block: the blank line
	// still makes a list loose.
	blankAfter bool
	// st is an open block's parsing state (nil once closed).
	st *openState
}

// AppendChild adds c as n's last child.
func (n *Node) AppendChild(c *Node) {
	c.Parent = n
	c.Prev = n.LastChild
	c.Next = nil
	if n.LastChild != nil {
		n.LastChild.Next = c
	} else {
		n.FirstChild = c
	}
	n.LastChild = c
}

// Remove takes n out of its parent.
func (n *Node) Remove() {
	p := n.Parent
	if p == nil {
		return
	}
	if n.Prev != nil {
		n.Prev.Next = n.Next
	} else {
		p.FirstChild = n.Next
	}
	if n.Next != nil {
		n.Next.Prev = n.Prev
	} else {
		p.LastChild = n.Prev
	}
	n.Parent, n.Prev, n.Next = nil, nil, nil
}

// insertAfter puts c right after n, in n's parent.
func (n *Node) insertAfter(c *Node) {
	p := n.Parent
	c.Parent = p
	c.Prev = n
	c.Next = n.Next
	if n.Next != nil {
		n.Next.Prev = c
	} else {
		p.LastChild = c
	}
	n.Next = c
}

// ChildCount is the number of n's children.
func (n *Node) ChildCount() int {
	k := 0
	for c := n.FirstChild; c != nil; c = c.Next {
		k++
	}
	return k
}
