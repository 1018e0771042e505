package loop

// historypack.go: what a resumed session's history costs to hold
// (issue 36, "the chat holds what is on screen"). The store decodes a
// history row by row: every part carries its own copy of the session's
// id, of its message's id and of its type; every tool state and step
// state is an allocation of its own; every string is rounded up to the
// allocator's next size class, and all of them are interleaved with the
// decoding's garbage, which keeps half-empty pages in use once that
// garbage is collected. A long session held that way took ≈ 3× the bytes
// of its text (10,000 parts: 8.1 MB for 2.6 MB of text and output).
//
// packHistory moves what Open read into fewer, denser allocations — the
// same values, so that everything made from the history (the requests,
// the calculator's figures, the chat) is what it was:
//
//   - the ids every part and message repeat (the session's, a part's
//     message's) become the one string they equal;
//   - short strings that recur (roles, types, tool names and statuses,
//     models, finish reasons, small tool inputs and titles) are kept once;
//   - every other string is copied into shared blocks of packBlockBytes;
//   - tool and step states are copied into one array of each.
//
// A string kept in a block keeps its block alive: the history lives as
// long as its Runner, and what the loop adds or replaces later (a new
// message, an output a prune clears) is allocated anew as before. The
// whole history a rewind reads back is packed again (rewind.go, reload).
// A headless run (Options.NonInteractive) is not packed: it holds its
// history only while it runs, and the packing would be work on its
// resume's path for memory nobody keeps.

import (
	"strings"

	"github.com/ctxloop/agent/internal/message"
)

// packBlockBytes is the size of a block of packed strings: small enough
// that a few strings still referenced by someone else (the chat's copy of
// the tail) keep little alive, large enough that a block's own rounding
// is nothing.
const packBlockBytes = 64 << 10

// packInternMax is the longest string interned: longer strings rarely
// recur, and a map of them would cost what it saves.
const packInternMax = 48

// packHistory packs h in place (see the file's comment); sessionID is the
// id its messages and parts belong to.
func packHistory(h []message.Entry, sessionID string) {
	if len(h) == 0 {
		return
	}
	p := historyPacker{intern: map[string]string{sessionID: sessionID}}
	tools, steps := 0, 0
	for i := range h {
		for j := range h[i].Parts {
			if h[i].Parts[j].Tool != nil {
				tools++
			}
			if h[i].Parts[j].Step != nil {
				steps++
			}
		}
	}
	toolSlab := make([]message.ToolState, 0, tools)
	stepSlab := make([]message.StepState, 0, steps)
	for i := range h {
		m := &h[i].Message
		p.block(&m.ID)
		p.share(&m.SessionID)
		intern(&p, &m.Role)
		p.block(&m.ParentID)
		p.share(&m.Model)
		p.share(&m.FinishReason)
		p.block(&m.Error)
		p.share(&m.RewindID)
		for j := range h[i].Parts {
			pt := &h[i].Parts[j]
			p.block(&pt.ID)
			p.share(&pt.SessionID)
			if pt.MessageID != m.ID { // else its message's, after the flush
				p.block(&pt.MessageID)
			}
			intern(&p, &pt.Type)
			p.block(&pt.Text)
			if pt.Tool != nil {
				toolSlab = append(toolSlab, *pt.Tool)
				t := &toolSlab[len(toolSlab)-1]
				pt.Tool = t
				p.block(&t.CallID)
				p.share(&t.Name)
				intern(&p, &t.Status)
				p.share(&t.Input)
				p.block(&t.Output)
				p.block(&t.RawOutput)
				p.share(&t.Title)
				p.block(&t.Progress)
				p.block(&t.FullOutputPath)
			}
			if pt.Step != nil {
				stepSlab = append(stepSlab, *pt.Step)
				s := &stepSlab[len(stepSlab)-1]
				pt.Step = s
				p.share(&s.FinishReason)
			}
		}
	}
	p.flush()
	// A part's message id is its message's packed one, known only now:
	// sharing the id as decoded would keep that alive too.
	for i := range h {
		for j := range h[i].Parts {
			if pt := &h[i].Parts[j]; pt.MessageID == h[i].Message.ID {
				pt.MessageID = h[i].Message.ID
			}
		}
	}
}

// historyPacker collects the strings packHistory moves.
type historyPacker struct {
	intern  map[string]string
	pending []*string // strings waiting for a block
	bytes   int       // their length
}

// intern keeps a short string once: the first of its equals it saw. It
// reports false, leaving *s as it is, for a longer one.
func intern[S ~string](p *historyPacker, s *S) bool {
	if len(*s) > packInternMax {
		return false
	}
	if *s == "" {
		return true
	}
	if k, ok := p.intern[string(*s)]; ok {
		*s = S(k)
	} else {
		p.intern[string(*s)] = string(*s)
	}
	return true
}

// share interns a short string and moves a longer one to a block.
func (p *historyPacker) share(s *string) {
	if !intern(p, s) {
		p.block(s)
	}
}

// block moves *s into the current block of strings (at flush); a string
// as large as a block stays where it is.
func (p *historyPacker) block(s *string) {
	if *s == "" || len(*s) >= packBlockBytes/2 {
		return
	}
	if p.bytes+len(*s) > packBlockBytes {
		p.flush()
	}
	p.pending = append(p.pending, s)
	p.bytes += len(*s)
}

// flush copies the pending strings into one new block and points them at
// their copies.
func (p *historyPacker) flush() {
	if len(p.pending) == 0 {
		return
	}
	var b strings.Builder
	b.Grow(p.bytes)
	for _, s := range p.pending {
		b.WriteString(*s)
	}
	all, at := b.String(), 0
	for _, s := range p.pending {
		n := len(*s)
		*s = all[at : at+n]
		at += n
	}
	p.pending, p.bytes = p.pending[:0], 0
}
