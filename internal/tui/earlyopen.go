package tui

// A fresh chat's session is opened while its first message is typed, so
// that Enter finds the runner ready instead of opening it (loop.Open and
// a round through Update: 1.1–1.5 ms of the first turn's Enter →
// request). The contract:
//   - It starts on the editor's first character of a fresh chat, once
//     per chat generation, only when Enter would open a new session: no
//     setup error, a model to send to, no SessionStart hooks (those fire
//     at the open, and must fire once, for a session that is used: with
//     them the session is opened on Enter, as before), and text that is
//     not a command (a "/" first: /resume, /model, /new send nothing);
//     it starts once the text no longer begins with one.
//   - A resume, a switch or /new drops it: its runner is closed unless an
//     open since took its place (dropEarly).
//   - Opening a fresh session writes nothing (loop.Options.RowOnFirstMessage):
//     a chat quit after typing leaves no session behind; its runner is
//     in the chat's slot, closed with the chat (Model.Close). It takes an
//     empty slot only: an open begun since keeps its runner.
//   - Enter uses it only if the chat's generation and configuration are
//     still the ones it opened with (a model chosen since is a new
//     configuration); otherwise it is closed and the session is opened
//     on Enter as before. Ready, it is taken in Update, and the message is
//     sent by the same command round; still opening, Enter's open waits
//     for it.
//   - Once open, it is warmed as the first key warms an open session
//     (loop.Runner.PrefetchEnvironment: the request's shell encoded).

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/hooks"
	"github.com/ctxloop/agent/internal/message"
)

// earlyOpen is a fresh chat's session being opened ahead of Enter.
type earlyOpen struct {
	gen  int            // the generation Enter's open would take
	cfg  *config.Config // the configuration it opened with
	done chan struct{}  // closed once msg is set
	msg  openedMsg
}

// startEarlyOpen starts opening a fresh chat's session when the contract
// above allows it. It returns at once.
func startEarlyOpen(m *Model) {
	p := &m.prefetch
	if !p.typing || p.early != nil || !m.fresh || m.runner != nil || m.opening || m.closed ||
		m.opt.Setup != nil || needsModel(nil, true, m.opt.Loop.Config) || m.opt.Loop.Hooks.Has(hooks.SessionStart) ||
		strings.HasPrefix(strings.TrimSpace(m.editor.value()), "/") {
		return
	}
	e := &earlyOpen{gen: m.gen + 1, cfg: m.opt.Loop.Config, done: make(chan struct{})}
	open := opener(m, "", e.gen, nil, true)
	p.early = e
	slot := m.slot
	go func() {
		e.msg = open()
		// The warming runs as an open does, inside the slot's opens
		// under way: the chat's Close waits for it before it closes the
		// runner (a runner's Close and its warming's start must not
		// overlap).
		if r := e.msg.runner; r != nil && slot.begin() {
			r.PrefetchEnvironment() // what the first key does for an open session: the request's shell encoded (loop/shellwarm.go)
			slot.end()
		}
		close(e.done)
	}()
}

// takeEarly is Enter's open for generation gen: the early open's, if it
// opened with cfg for that generation, and open if there is none, it
// failed, or it is not for them (it is closed then).
func (p *envPrefetch) takeEarly(gen int, cfg *config.Config, slot *runnerSlot, open func() openedMsg) func() openedMsg {
	e := p.early
	p.early = nil
	if e == nil {
		return open
	}
	if e.gen != gen || e.cfg != cfg {
		go e.discard(slot)
		return open
	}
	return func() openedMsg {
		<-e.done
		if e.msg.err != nil {
			return open()
		}
		return e.msg
	}
}

// dropEarly discards the early open, if any (a resume, a switch, /new).
func (p *envPrefetch) dropEarly(slot *runnerSlot) {
	if e := p.early; e != nil {
		p.early = nil
		go e.discard(slot)
	}
}

// discard closes the early open's runner, one Enter cannot use, once it
// is open, unless the chat's slot no longer holds it (an open since
// closed it: runnerSlot). It runs as an open under way, which the chat's
// Close waits for; once the chat closed, Close closes what the slot holds.
func (e *earlyOpen) discard(slot *runnerSlot) {
	if !slot.begin() {
		return
	}
	defer slot.end()
	<-e.done
	if r := e.msg.runner; r != nil && slot.take(r) {
		_ = r.Close()
	}
}

// sendFresh sends a fresh chat's first message: at once, when the
// session opened on the first key is ready for it; else through the open
// Enter starts (openSession).
func sendFresh(m *Model, text string, kind message.QueueKind) tea.Cmd {
	if e := m.prefetch.early; e != nil && e.gen == m.gen+1 && e.cfg == m.opt.Loop.Config {
		select {
		case <-e.done:
			if e.msg.err == nil {
				m.prefetch.early = nil
				m.gen++
				m.hooks, m.fresh, m.openErr = hookNotes{}, false, nil
				m.pending = append(m.pending, outgoing{text: text, kind: kind})
				return m.handleOpened(e.msg) // sends the message (sendNext)
			}
		default:
		}
	}
	return tea.Batch(m.openSession(""), m.sendKind(text, kind))
}
