package task

// The child's progress, as the parent's tool call shows it while the child
// runs: the last few calls the child made ("read foo.go", "grep …") and a
// status line with its step and token count. Each report is the whole
// view, and reports are spaced by reportInterval, the latest view sent
// when the interval is over: the parent's loop drops a report that comes
// within a quarter of a second of the one before, and the card would show
// a stale view while the child waits for its model.

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// progressCalls is how many of the child's latest calls the view shows.
const progressCalls = 3

// reportInterval spaces the reports: more than the parent loop's throttle
// (250 ms, loop.progressInterval).
const reportInterval = 300 * time.Millisecond

// progress turns the child's events into the view reported to report.
type progress struct {
	report func(string) // nil: nobody watches
	reg    *tools.Registry
	env    *tools.Env // for titles only

	mu     sync.Mutex // the child's read-only calls report from several goroutines
	seen   map[string]bool
	calls  []string // newest last, at most progressCalls
	steps  int
	tokens int64
	note   string // retrying, compacting…

	last    time.Time   // when the last report went
	pending *time.Timer // sends the latest view once the interval is over
	closed  bool
}

func newProgress(report func(string), reg *tools.Registry, dir string) *progress {
	return &progress{report: report, reg: reg, env: &tools.Env{Dir: dir}, seen: map[string]bool{}}
}

// observe is the child's loop.Options.Observer.
func (p *progress) observe(ev message.Event) {
	if p.report == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.apply(ev) || p.closed || p.pending != nil {
		return // a pending report will send the view as it is then
	}
	if wait := reportInterval - time.Since(p.last); wait > 0 {
		p.pending = time.AfterFunc(wait, p.flush)
		return
	}
	p.send()
}

// begin reports the view before the child's first event.
func (p *progress) begin() {
	if p.report == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.send()
}

// flush sends the view a pending report was waiting to send.
func (p *progress) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending = nil
	if !p.closed {
		p.send()
	}
}

// send reports the view; p.mu is held (reports are serialised).
func (p *progress) send() {
	p.last = time.Now()
	p.report(p.view())
}

// close stops the reports: the call is over.
func (p *progress) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.pending != nil {
		p.pending.Stop()
		p.pending = nil
	}
}

// apply records ev and reports whether the view changed.
func (p *progress) apply(ev message.Event) bool {
	switch ev.Type {
	case message.EventPartUpdated:
		part := ev.Part
		if part == nil {
			return false
		}
		switch {
		case part.Type == message.PartStepFinish:
			p.steps++
			p.note = ""
			return true
		case part.Type == message.PartTool && part.Tool != nil && part.Tool.Status == message.ToolRunning && !p.seen[part.Tool.CallID]:
			st := part.Tool
			p.seen[st.CallID] = true
			title := p.reg.Title(p.env, tools.Call{Name: st.Name, Input: []byte(st.Input)})
			p.calls = append(p.calls, oneLine(title))
			if len(p.calls) > progressCalls {
				p.calls = p.calls[len(p.calls)-progressCalls:]
			}
			return true
		}
	case message.EventSessionUpdated:
		if s := ev.Session; s != nil {
			tokens := s.Usage.Input + s.Usage.Output
			changed := tokens != p.tokens
			p.tokens = tokens
			return changed
		}
	case message.EventRetrying:
		p.note = "retrying…"
		return true
	case message.EventCompacting:
		p.note = "compacting its context…"
		return true
	}
	return false
}

// view renders the calls and the status line.
func (p *progress) view() string {
	var b strings.Builder
	for _, c := range p.calls {
		b.WriteString(c)
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "step %d · %s tokens", p.steps+1, formatTokens(p.tokens))
	if p.note != "" {
		b.WriteString(" · " + p.note)
	}
	return b.String()
}

// oneLine keeps the first line of s, at most 120 characters.
func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

// formatTokens abbreviates a token count: 950, 12.3K, 1.2M.
func formatTokens(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e3), ".0") + "K"
	default:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
	}
}
