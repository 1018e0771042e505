package oldgfm

import (
	"strconv"

	"github.com/yuin/goldmark/ast"
)

// The node kinds of the extensions. Naming a kind appends to goldmark's
// list of names: the only work this package does at init.
var (
	KindTable         = ast.NewNodeKind("Table")
	KindTableHeader   = ast.NewNodeKind("TableHeader")
	KindTableRow      = ast.NewNodeKind("TableRow")
	KindTableCell     = ast.NewNodeKind("TableCell")
	KindStrikethrough = ast.NewNodeKind("Strikethrough")
	KindTaskCheckBox  = ast.NewNodeKind("TaskCheckBox")
)

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

// Table is a GFM table. Its first child is a TableHeader, the others are
// TableRows; every row has exactly len(Alignments) cells.
type Table struct {
	ast.BaseBlock
	// Alignments holds each column's alignment.
	Alignments []Alignment
}

// Kind implements ast.Node.
func (n *Table) Kind() ast.NodeKind { return KindTable }

// Dump implements ast.Node.
func (n *Table) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Columns": strconv.Itoa(len(n.Alignments))}, nil)
}

// TableHeader is a table's header row: its children are TableCells.
type TableHeader struct{ ast.BaseBlock }

// Kind implements ast.Node.
func (n *TableHeader) Kind() ast.NodeKind { return KindTableHeader }

// Dump implements ast.Node.
func (n *TableHeader) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// TableRow is a table's body row: its children are TableCells.
type TableRow struct{ ast.BaseBlock }

// Kind implements ast.Node.
func (n *TableRow) Kind() ast.NodeKind { return KindTableRow }

// Dump implements ast.Node.
func (n *TableRow) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// TableCell is a table cell: its children are inline nodes, its Lines the
// one segment of source they were parsed from (none for a cell a short
// row lacks).
type TableCell struct {
	ast.BaseBlock
	// Alignment is the alignment of the cell's column.
	Alignment Alignment
}

// Kind implements ast.Node.
func (n *TableCell) Kind() ast.NodeKind { return KindTableCell }

// Dump implements ast.Node.
func (n *TableCell) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Alignment": n.Alignment.String()}, nil)
}

// Strikethrough is text between ~~ and ~~ (or ~ and ~).
type Strikethrough struct{ ast.BaseInline }

// Kind implements ast.Node.
func (n *Strikethrough) Kind() ast.NodeKind { return KindStrikethrough }

// Dump implements ast.Node.
func (n *Strikethrough) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// TaskCheckBox is the "[ ]" or "[x]" that starts a task list item. It is
// the first child of the item's first paragraph (or text block).
type TaskCheckBox struct {
	ast.BaseInline
	// Checked is true for "[x]" and "[X]".
	Checked bool
}

// Kind implements ast.Node.
func (n *TaskCheckBox) Kind() ast.NodeKind { return KindTaskCheckBox }

// Dump implements ast.Node.
func (n *TaskCheckBox) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Checked": strconv.FormatBool(n.Checked)}, nil)
}
