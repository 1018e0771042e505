package oldgfm

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Strikethrough, as GFM has it: text between runs of one or two tildes,
// the closing run as long as the opening one ("~~a~" strikes nothing),
// each run flanking its text the way '*' does; a run of three or more is
// plain text. The runs are delimiters, matched by goldmark's delimiter
// processing with the emphasis ones.
//
// That processing walks back from each closing run to the block's start
// when nothing matches it, so a block of n runs that open and then n that
// cannot close any of them costs n² (" ~~a" n times, then " a~" n times).
// The parser keeps, per block, how many opening runs of each length may
// still be unmatched, and leaves a run that can only close as text when
// there are none: it could not have matched anything.

var strikeDelimiters = strikeProcessor{}

type strikeProcessor struct{}

func (strikeProcessor) IsDelimiter(b byte) bool { return b == '~' }

func (strikeProcessor) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char && opener.OriginalLength == closer.OriginalLength
}

func (strikeProcessor) OnMatch(int) ast.Node { return &Strikethrough{} }

type strikeParser struct {
	// state keys the block's strikeState in the parse context.
	state parser.ContextKey
	// prune leaves closing runs with nothing to close as text (off only
	// in the test that checks it changes nothing).
	prune bool
}

// strikeState is the parser's memory within one Parse. refusedUntil is
// the end of the last run left as text: the parser is called again at
// each of its other tildes and must refuse them too, without scanning the
// rest of the run again. openers counts, for the block being parsed, the
// opening runs of each length that a closing run may still match: it
// over-counts (runs that emphasis or a link removes stay counted) but
// never under-counts one that can still be matched.
type strikeState struct {
	refusedUntil int
	block        ast.Node
	openers      [3]int
}

func (p *strikeParser) Trigger() []byte { return []byte{'~'} }

func (p *strikeParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, seg := block.PeekLine()
	st, _ := pc.Get(p.state).(*strikeState)
	if st == nil {
		st = &strikeState{}
		pc.Set(p.state, st)
	}
	if seg.Start < st.refusedUntil {
		return nil
	}
	d := parser.ScanDelimiter(line, block.PrecendingCharacter(), 1, strikeDelimiters)
	if d == nil {
		return nil
	}
	st.refusedUntil = seg.Start + d.OriginalLength
	if d.OriginalLength > 2 || !d.CanOpen && !d.CanClose {
		return nil
	}
	if p.prune {
		if st.block != parent {
			st.block, st.openers = parent, [3]int{}
		}
		switch n := &st.openers[d.OriginalLength]; {
		case d.CanOpen:
			*n++
		case *n == 0:
			return nil
		case !pc.IsInLinkLabel():
			// It will match one of them. (Inside a link's text it may
			// match none: the link's own processing stops at the
			// bracket.)
			*n--
		}
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}
