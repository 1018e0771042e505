package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// benchSession is a database holding one session of turns; each turn is
// a user message and an assistant message with text, a tool call, more
// text and a step-finish (five parts a turn).
type benchSession struct {
	store *storage.Store
	cfg   *config.Config
	dir   string
	data  string
	id    string
}

func newBenchSession(b testing.TB, turns int) *benchSession {
	b.Helper()
	ctx := context.Background()
	s := &benchSession{dir: b.TempDir(), data: b.TempDir()}
	home := b.TempDir()
	cfg, err := config.Load(config.Flags{Model: "gpt-4.1", BaseURL: "http://127.0.0.1:1/v1", DataDir: s.data}, s.dir,
		func(k string) string { return map[string]string{"HOME": home}[k] })
	if err != nil {
		b.Fatal(err)
	}
	s.cfg = cfg
	if s.store, err = storage.Open(ctx, s.data); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.store.Close() })
	sess := &message.Session{Title: "benchmark", Model: "gpt-4.1", Dir: s.dir}
	if err := s.store.CreateSession(ctx, sess); err != nil {
		b.Fatal(err)
	}
	s.id = sess.ID
	// The whole history in one transaction: seconds saved per benchmark.
	if err := s.store.ImportHistory(ctx, sess.ID, benchTurns(turns)); err != nil {
		b.Fatal(err)
	}
	return s
}

// benchTurns are turns of a user message and an assistant message with
// text, a tool call, more text and a step-finish (five parts a turn).
func benchTurns(turns int) []message.Entry {
	now := time.Now()
	var out []message.Entry
	for i := range turns {
		out = append(out, message.Entry{
			Message: message.Message{Role: message.RoleUser, FinishedAt: now},
			Parts: []message.Part{{Type: message.PartText,
				Text: fmt.Sprintf("question %d: could you look at the handler and tell me why it fails?", i)}},
		}, message.Entry{
			Message: message.Message{Role: message.RoleAssistant, Model: "gpt-4.1", FinishReason: "stop", FinishedAt: now},
			Parts: []message.Part{
				{Type: message.PartText, Text: fmt.Sprintf("Let me read it. Answer **%d** follows:\n\n- first point\n- second point\n\n```go\nfunc f() int { return %d }\n```", i, i)},
				{Type: message.PartTool, Tool: &message.ToolState{CallID: fmt.Sprintf("c%d", i), Name: "read", Status: message.ToolCompleted,
					Input: `{"path":"main.go"}`, Title: "read main.go", Output: strings.Repeat("a line of the file being read\n", 30), StartedAt: now, EndedAt: now}},
				{Type: message.PartText, Text: "The handler returns early when the context is done; " + strings.Repeat("more explanation ", 20)},
				{Type: message.PartStepFinish, Step: &message.StepState{Usage: message.Usage{Input: 2000, Output: 150}, FinishReason: "stop"}},
			},
		})
	}
	return out
}

func (s *benchSession) options() Options {
	return Options{Loop: loop.Options{Store: s.store, Tools: tools.NewRegistry(), Config: s.cfg, Dir: s.dir, OutputDir: filepath.Join(s.data, "outputs")}, SessionID: s.id}
}

// openModel opens the model on the session synchronously.
func (s *benchSession) openModel(b testing.TB, width, height int) *Model {
	m := New(s.options())
	m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	m.Update(m.openSession(s.id)())
	if m.runner == nil {
		b.Fatalf("open: %v", m.openErr)
	}
	return m
}

// collectRenders runs a command tree in the background and forwards the
// markdown renders it produces; timers end when the model closes.
func collectRenders(cmd tea.Cmd, out chan<- tea.Msg) {
	if cmd == nil {
		return
	}
	go func() {
		switch msg := cmd().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				collectRenders(c, out)
			}
		case renderedMsg, tailDueMsg:
			out <- msg
		}
	}()
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// BenchmarkFrameRender measures a frame (Update + View) of a 2,000-message
// session while a reply streams: most frames apply a text delta, every
// fourth is a keystroke in the editor, and markdown renders arrive as
// they would (off the frame, applied by their own frames).
func BenchmarkFrameRender(b *testing.B) { benchFrameRender(b, false) }

// BenchmarkFrameRenderInline is BenchmarkFrameRender in inline mode: the
// resumed history and each finished item are printed to the scrollback
// (the print acknowledged at once), the live region redrawn.
func BenchmarkFrameRenderInline(b *testing.B) { benchFrameRender(b, true) }

func benchFrameRender(b *testing.B, inline bool) {
	s := newBenchSession(b, 1000) // 2,000 messages
	m := New(s.options())
	m.inline = inline
	m.printCmd = func(string) tea.Cmd { return nil }
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(m.openSession(s.id)())
	if m.runner == nil {
		b.Fatalf("open: %v", m.openErr)
	}
	defer m.Close()
	renders := make(chan tea.Msg, 1024)
	apply := func(msg tea.Msg) time.Duration {
		start := time.Now()
		_, cmd := m.Update(msg)
		if m.printing {
			m.Update(printStartedMsg{}) // the terminal took the print
			m.Update(printedMsg{})
		}
		_ = m.View()
		d := time.Since(start)
		collectRenders(cmd, renders)
		return d
	}
	// Let the visible history render first.
	apply(tea.WindowSizeMsg{Width: 120, Height: 40})
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		select {
		case msg := <-renders:
			apply(msg)
			continue
		case <-time.After(200 * time.Millisecond):
		}
		break
	}
	streamMsg := message.Message{ID: message.NewID(), SessionID: s.id, Role: message.RoleAssistant}
	part := message.Part{ID: message.NewID(), SessionID: s.id, MessageID: streamMsg.ID, Type: message.PartText}
	event := func(ev message.Event) tea.Msg { return inboxMsg{loopEvent{gen: m.gen, ev: ev}} }
	apply(event(message.Event{Type: message.EventStatus, Busy: true}))
	apply(event(message.Event{Type: message.EventPartUpdated, Part: &part}))
	words := strings.Fields("The fix is to check the error before using the result, and to return early when the context is cancelled so that the handler does not write after the client went away.")

	frames := make([]time.Duration, 0, b.N)
	keys := make([]time.Duration, 0, b.N/4+1)
	b.ResetTimer()
	for i := range b.N {
		for drained := false; !drained; {
			select {
			case msg := <-renders:
				frames = append(frames, apply(msg))
			default:
				drained = true
			}
		}
		if i%4 == 3 {
			if i%400 == 399 {
				m.editor.reset() // a message's worth of typing
			}
			d := apply(tea.KeyPressMsg{Code: 'x', Text: "x"})
			frames = append(frames, d)
			keys = append(keys, d)
			continue
		}
		delta := words[i%len(words)] + " "
		if i%60 == 59 {
			delta = "end.\n\n"
		}
		frames = append(frames, apply(event(message.Event{Type: message.EventPartDelta, Part: &part, Delta: delta})))
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(frames, 0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(percentile(frames, 0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(keys, 0.99).Microseconds())/1000, "key-p99-ms")
}

// BenchmarkResumeFirstFrame measures resuming a session of 10,000 parts
// as the chat does it: New, Init's commands run concurrently (the session
// opening: lease, repair, the whole history, the calculator; and the
// tail read for the first screen), their messages applied in order of
// arrival, until View returns a frame showing the last answer (target
// ≤ 60 ms). It reports that, the time until the whole history is in, and
// the heap in use after.
func BenchmarkResumeFirstFrame(b *testing.B) {
	s := newBenchSession(b, 2000) // 2,000 user parts + 8,000 assistant parts
	var heap uint64
	var first, full []time.Duration
	b.ResetTimer()
	for range b.N {
		d := newBenchDriver()
		start := time.Now()
		m := New(s.options())
		d.run(m.Init())
		d.update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
		shown := false
		for !shown || m.runner == nil {
			d.update(m, <-d.msgs)
			if !shown && strings.Contains(m.View().Content, "Answer **1999**") {
				shown = true
				first = append(first, time.Since(start))
			}
		}
		full = append(full, time.Since(start))
		b.StopTimer()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = max(heap, ms.HeapInuse)
		m.Close()
		d.stop()
		b.StartTimer()
	}
	b.ReportMetric(float64(percentile(first, 0.5).Microseconds())/1000, "first-frame-ms")
	b.ReportMetric(float64(percentile(full, 0.5).Microseconds())/1000, "full-history-ms")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
}

// benchDriver runs a model's commands as Bubble Tea does, each on its own
// goroutine, their messages delivered on msgs.
type benchDriver struct {
	msgs chan tea.Msg
	done chan struct{}
}

func newBenchDriver() *benchDriver {
	return &benchDriver{msgs: make(chan tea.Msg, 1024), done: make(chan struct{})}
}

func (d *benchDriver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				d.run(c)
			}
			return
		}
		if msg != nil {
			select {
			case d.msgs <- msg:
			case <-d.done:
			}
		}
	}()
}

// update applies msg and runs the commands it returns.
func (d *benchDriver) update(m *Model, msg tea.Msg) {
	if batch, ok := msg.(tea.BatchMsg); ok {
		for _, c := range batch {
			d.run(c)
		}
		return
	}
	_, cmd := m.Update(msg)
	d.run(cmd)
}

func (d *benchDriver) stop() { close(d.done) }
