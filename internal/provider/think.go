package provider

// The <think> splitter. Some servers (DeepSeek-R1 via Together, and other
// hosts of open reasoning models) put the reasoning inside the answer text
// as a <think>…</think> block. A block that opens the answer (after
// whitespace at most) is reasoning; anywhere else the tags are the answer's
// own text (a model explaining HTML, say), so they stay text. Tags may be
// split across deltas: a possible partial tag is held back until the next
// delta decides it. A stream that ends inside the block yields the rest as
// reasoning; one that ends on a partial opening tag yields it as text.
// Whitespace just inside the block and just after it is dropped.

import "strings"

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

type thinkState int

const (
	thinkStart   thinkState = iota // nothing but whitespace yet
	thinkInside                    // inside the opening block
	thinkAfter                     // just after </think>: drop whitespace
	thinkPassing                   // the rest is text
)

// thinkSplitter separates an opening <think> block from the answer text.
// The zero value is ready; feed it the text deltas in order, then flush.
type thinkSplitter struct {
	state   thinkState
	pending string // held back: leading whitespace, or a possible partial tag
	started bool   // inside: reasoning text was emitted
}

// feed takes one text delta and emits its pieces in order; emit is never
// given an empty string.
func (t *thinkSplitter) feed(s string, emit func(text string, reasoning bool)) {
	for s != "" {
		switch t.state {
		case thinkPassing:
			emit(s, false)
			return
		case thinkStart:
			buf := t.pending + s
			s = ""
			rest := strings.TrimLeft(buf, " \t\r\n")
			switch {
			case strings.HasPrefix(rest, thinkOpen):
				t.state, t.pending = thinkInside, ""
				s = rest[len(thinkOpen):]
			case strings.HasPrefix(thinkOpen, rest):
				t.pending = buf // whitespace, or a partial tag: wait
			default:
				t.state, t.pending = thinkPassing, ""
				emit(buf, false)
			}
		case thinkInside:
			buf := t.pending + s
			s = ""
			if !t.started {
				buf = strings.TrimLeft(buf, " \t\r\n")
			}
			if i := strings.Index(buf, thinkClose); i >= 0 {
				t.emitReasoning(buf[:i], emit)
				t.state, t.pending = thinkAfter, ""
				s = buf[i+len(thinkClose):]
				continue
			}
			keep := partialSuffix(buf, thinkClose)
			t.emitReasoning(buf[:len(buf)-keep], emit)
			t.pending = buf[len(buf)-keep:]
		case thinkAfter:
			s = strings.TrimLeft(s, " \t\r\n")
			if s != "" {
				t.state = thinkPassing
			}
		}
	}
}

func (t *thinkSplitter) emitReasoning(s string, emit func(string, bool)) {
	if s != "" {
		t.started = true
		emit(s, true)
	}
}

// flush emits what is held back at the end of the stream.
func (t *thinkSplitter) flush(emit func(text string, reasoning bool)) {
	p := t.pending
	t.pending = ""
	if p == "" {
		return
	}
	switch t.state {
	case thinkStart:
		t.state = thinkPassing
		emit(p, false)
	case thinkInside:
		emit(p, true)
	}
}

// partialSuffix is the length of the longest suffix of s that is a proper
// prefix of tag.
func partialSuffix(s, tag string) int {
	for n := min(len(s), len(tag)-1); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
