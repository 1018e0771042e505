package oldgfm

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// A task list item starts its first paragraph with "[ ]", "[x]" or "[X]"
// and a space or tab; the check box and the blanks after it become a
// TaskCheckBox.

type taskParser struct{}

func (taskParser) Trigger() []byte { return []byte{'['} }

func (taskParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	if parent.HasChildren() {
		return nil // not the paragraph's start
	}
	item, ok := parent.Parent().(*ast.ListItem)
	if !ok || item.FirstChild() != parent {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 4 || line[0] != '[' || line[2] != ']' || line[3] != ' ' && line[3] != '\t' {
		return nil
	}
	box := &TaskCheckBox{}
	switch line[1] {
	case ' ':
	case 'x', 'X':
		box.Checked = true
	default:
		return nil
	}
	n := 4
	for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	block.Advance(n)
	return box
}
