// Package oldgfm is the goldmark-based GFM parser the renderer used before package gfm became a parser of its own; it stays only until the renderer is switched over.
//
// The old package comment follows.
//
// Package gfm is a Markdown parser for CommonMark plus GitHub's extensions:
// tables, strikethrough, task list items and bare URLs as links. It is
// built on goldmark's parser API only (ast, parser, text, util), so that
// goldmark's root package, HTML renderer and extension package — and their
// package init — stay out of the binary.
//
// The contract: NewParser returns a parser.Parser whose documents hold
// goldmark's CommonMark nodes and this package's Table (TableHeader,
// TableRow, TableCell), Strikethrough and TaskCheckBox nodes, and
// ast.AutoLink nodes for bare URLs. The extensions follow the GFM
// specification (https://github.github.com/gfm/) with these differences:
// bare e-mail addresses are not links; a domain with an underscore in its
// last two labels is still linked; a table is made from a finished
// paragraph, so it ends where the paragraph does (a line of '=' right
// under its rows ends it, where GFM makes that line a row). Their own
// scanning is linear in the input: every byte is looked at a bounded
// number of times, with no regular expression and nothing rescanned after
// a failed match. NewParser does the building;
// package init does nothing but name the node kinds. A parser is safe for
// concurrent use; its state lives in each Parse's context.
package oldgfm

import (
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"
)

// NewParser returns a CommonMark parser with the GFM extensions.
func NewParser() parser.Parser {
	escaped := parser.NewContextKey()
	strikeState := parser.NewContextKey()
	inline := append(parser.DefaultInlineParsers(),
		// Before links: "[ ]" at the start of an item is a check box.
		util.Prioritized(taskParser{}, 0),
		util.Prioritized(&strikeParser{state: strikeState, prune: true}, 500),
		// After everything else: '*', '_' and '~' are delimiters first.
		util.Prioritized(urlParser{}, 999),
	)
	paragraph := append(parser.DefaultParagraphTransformers(),
		// After link reference definitions are taken out.
		util.Prioritized(tableTransformer{escaped: escaped}, 200),
	)
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(inline...),
		parser.WithParagraphTransformers(paragraph...),
		parser.WithASTTransformers(util.Prioritized(pipeTransformer{escaped: escaped}, 0)),
	)
}
