package tui

// What the user does to the turn: send (queued by the runner while busy),
// interrupt, compact, switch model. Each runner call runs as a command;
// its result comes back as a message.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
)

// send sends text to the runner (where it is queued while busy). Sends
// run one at a time so that messages typed quickly keep their order.
func (m *Model) send(text string) tea.Cmd {
	return m.sendKind(text, message.KindSteer)
}

// sendNext starts the oldest pending send if none is in flight.
func (m *Model) sendNext() tea.Cmd {
	if m.sending || m.cp.rewinding || m.runner == nil || len(m.pending) == 0 {
		return nil
	}
	out := m.pending[0]
	m.pending = m.pending[1:]
	m.sending = true
	var wake tea.Cmd
	if !m.inline {
		m.prefetch.hold.start(time.Now()) // framehold.go
		wake = m.after(holdMax, holdEndMsg{})
	}
	done := startSend(m.runner, out)
	return tea.Batch(func() tea.Msg { return <-done }, wake)
}

// startSend starts out's send to r and returns where its answer comes.
// It starts in Update (issue 36 item 4),
// not when Bubble Tea runs the command: that comes after the rest of the
// Update, the frame and, when Update returns several commands, a round
// of their batch through the event loop — between Enter and the request
// on the wire. The order of sends is sendNext's (one at a time).
func startSend(r *loop.Runner, out outgoing) <-chan sentMsg {
	if sendStarting != nil {
		sendStarting()
	}
	done := make(chan sentMsg, 1)
	go func() {
		if sendRunning != nil {
			sendRunning()
		}
		queued, err := r.SendKind(context.Background(), out.text, out.kind, out.images...)
		done <- sentMsg{text: out.text, images: out.images, queued: queued, err: err}
	}()
	// The send runs now, on this thread, until it waits (the request
	// handed to the connection): a new goroutine waits otherwise for the
	// rest of Update and the frame, or for another thread to wake and
	// take it (90–180 µs on two loaded cores, 10–40 with the yield:
	// BenchmarkEnterToRequest's probes). The rest of Update goes on when
	// the send waits, or on another thread; the frame is held until the
	// send is out anyway (framehold.go).
	runtime.Gosched()
	return done
}

// sendStarting and sendRunning, if set, are called as a send starts in
// Update and as its goroutine runs (tests: what Update has done by then,
// and when the send runs).
var sendStarting, sendRunning func()

// submitAs sends the editor's text; while the agent is busy it is queued
// as kind (steer.go). Enter on the editor submits as message.KindSteer:
// the message steers the running turn.
func (m *Model) submitAs(kind message.QueueKind) tea.Cmd {
	shown := m.editor.value()
	if strings.TrimSpace(shown) == "" {
		return nil
	}
	// History keeps what was shown (placeholders and all); what is sent
	// has the large pastes expanded.
	text := m.editor.expand(shown)
	if command, ok := bangCommand(text); ok { // bang.go
		m.editor.remember(shown)
		m.editor.reset()
		return m.runBang(command)
	}
	if cmd, arg, ok := parseCommand(text); ok {
		m.editor.remember(shown)
		m.editor.reset()
		return m.runCommand(cmd, arg)
	} else if strings.HasPrefix(text, "/") && !strings.ContainsAny(strings.Fields(text)[0][1:], "/.") {
		if cmd, ok := resolveCustom(m.opt.Commands, shown, text, kind); ok { // custom.go
			return cmd
		}
		return m.unknownCommand(text)
	}
	return m.sendText(shown, text, kind)
}

// unknownCommand says that "/name" is no command.
func (m *Model) unknownCommand(text string) tea.Cmd {
	return m.setFlash(fmt.Sprintf("unknown command %s: /help lists them (start with a space to send it as text)", strings.Fields(text)[0]), 4*time.Second)
}

// sendText sends text, the editor's content shown (what the history
// keeps), once the chat can send: the editor is cleared then, and keeps
// the text otherwise.
func (m *Model) sendText(shown, text string, kind message.QueueKind) tea.Cmd {
	if m.opt.Setup != nil {
		m.chat.notice(noticeError, "not sent: "+m.opt.Setup.Error(), "Set the key or a base URL and restart; your text stays in the editor.")
		m.chat.toBottom()
		return nil
	}
	if needsModel(m.runner, m.fresh, m.opt.Loop.Config) {
		// Not sent to a model the server may not have: the text stays,
		// and is sent once a model is chosen.
		ask := m.askModel()
		if d, ok := m.drawer.(*pickerDrawer); ok {
			d.then = func(m *Model) tea.Cmd { return m.submitAs(kind) }
		}
		return tea.Batch(ask, m.setFlash("pick a model first: your message is sent once you choose", 3*time.Second))
	}
	images, err := m.images.take(m.runner) // images.go
	if err != nil {
		m.chat.notice(noticeError, "not sent: "+err.Error(), "Your message and images stay.")
		m.chat.toBottom()
		return nil
	}
	m.dropWelcome()
	m.chat.toBottom()
	var cmd tea.Cmd
	switch {
	case len(images) > 0:
		m.pending = append(m.pending, outgoing{text: text, kind: kind, images: images})
		if m.runner == nil && m.fresh {
			cmd = m.openSession("")
		} else {
			cmd = m.sendNext()
		}
	case m.runner == nil && m.fresh:
		cmd = sendFresh(m, text, kind) // earlyopen.go
	case m.runner == nil && !m.opening:
		m.editor.remember(shown)
		m.editor.reset()
		m.editor.setValue(text)
		m.chat.notice(noticeError, "no session is open", "Start one with /new.")
		return nil
	default:
		cmd = m.sendKind(text, kind)
	}
	// The editor is cleared once the send has started (sendNext's
	// startSend): textarea's Reset allocates 240 KB, on the way from
	// Enter to the request when made before it.
	m.editor.remember(shown)
	m.editor.reset()
	return cmd
}

func (m *Model) handleSent(msg sentMsg) tea.Cmd {
	m.sending = false
	m.prefetch.hold.release() // framehold.go
	next := m.sendNext()
	if msg.err == nil {
		return next
	}
	// Give the text (and images) back rather than lose them.
	m.images = append(msg.images, m.images...)
	if cur := m.editor.value(); cur == "" {
		m.editor.setValue(msg.text)
	} else {
		m.editor.setValue(msg.text + "\n" + cur)
	}
	m.chat.notice(noticeError, "not sent: "+msg.err.Error(), "Your message is back in the editor.")
	return next
}

// interrupt cancels the running turn (Esc).
func (m *Model) interrupt() tea.Cmd {
	if m.bang != nil {
		m.bang.cancel() // bang.go
		return m.setFlash("stopping the command…", 2*time.Second)
	}
	if m.compacting && m.stopCompact != nil {
		m.stopCompact()
		return m.setFlash("stopping the compaction…", 2*time.Second)
	}
	if !m.busy || m.runner == nil {
		return nil
	}
	m.cancelled = true
	r := m.runner
	return func() tea.Msg {
		q, err := r.Cancel(context.Background())
		return cancelledMsg{queued: q, err: err}
	}
}

func (m *Model) handleCancelled(msg cancelledMsg) {
	if msg.err != nil {
		m.chat.notice(noticeError, "interrupt: "+msg.err.Error(), "")
		return
	}
	if len(msg.queued) == 0 {
		return
	}
	texts := make([]string, 0, len(msg.queued)+1)
	var images []*message.FileState
	for _, q := range msg.queued {
		texts = append(texts, q.Text)
		images = append(images, q.Images...)
	}
	m.images = append(images, m.images...) // their images wait as chips again
	if cur := m.editor.value(); strings.TrimSpace(cur) != "" {
		texts = append(texts, cur)
	}
	m.editor.setValue(strings.Join(texts, "\n\n"))
	m.chat.notice(noticeInfo, fmt.Sprintf("%d queued message%s moved back to the editor", len(msg.queued), plural(len(msg.queued))), "")
}

// compactCmd runs /compact.
func (m *Model) compactCmd(focus string) tea.Cmd {
	if m.runner == nil {
		return m.setFlash("nothing to compact yet: no conversation", 2*time.Second)
	}
	if m.busy {
		return m.setFlash("the agent is busy: wait for the turn to end, or press esc to interrupt it", 3*time.Second)
	}
	if m.compacting {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.compacting = true
	m.stopCompact = cancel
	m.busySince = time.Now()
	r := m.runner
	return func() tea.Msg {
		defer cancel()
		return compactedMsg{err: r.Compact(ctx, focus)}
	}
}

func (m *Model) handleCompacted(msg compactedMsg) {
	m.compacting = false
	m.stopCompact = nil
	switch {
	case msg.err == nil:
	case errors.Is(msg.err, loop.ErrNothingToCompact):
		m.chat.notice(noticeInfo, termsafe.Strip(msg.err.Error()), "") // says why
	case errors.Is(msg.err, context.Canceled):
		m.chat.notice(noticeInfo, "compaction stopped", "")
	default:
		m.chat.notice(noticeError, "compact: "+msg.err.Error(), errorHint(msg.err.Error()))
	}
}

func (m *Model) handleModelSet(msg modelSetMsg) tea.Cmd {
	if msg.err != nil {
		m.chat.notice(noticeError, msg.err.Error(), "")
		return nil
	}
	remember := carryModel(m, msg.name) // lastmodel.go
	if m.runner != nil {
		m.snap = m.runner.Reading()
		m.sess = m.runner.Session()
		text := "model: " + msg.name
		if !m.runner.ModelKnown() {
			m.chat.notice(noticeWarn, text, unknownModelHint(msg.name))
			return remember
		}
		m.chat.notice(noticeInfo, text, "")
	}
	return remember
}

func unknownModelHint(name string) string {
	return fmt.Sprintf("The catalog does not know %s: a %dK window is assumed. Give its limits under \"models\" in the config.", name, tokens.DefaultWindow/1000)
}
