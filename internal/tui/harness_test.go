package tui

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"go.uber.org/goleak"

	"github.com/ctxloop/agent/internal/childproc"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/provider"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction(childproc.SpawnerFunc),
		goleak.IgnoreAnyFunction("github.com/ctxloop/agent/internal/context/tokens.(*Tokenizer).load"),
		// teatest waits for a SIGINT for the life of the process.
		goleak.IgnoreAnyFunction("github.com/charmbracelet/x/exp/teatest/v2.NewTestModel.func2"),
	)
}

// harness drives a Model the way Bubble Tea does: Update on the test's
// goroutine, commands on their own, their messages fed back in order of
// arrival. It runs against a real runner, a scripted server and a real
// database.
type harness struct {
	t     *testing.T
	m     *Model
	srv   *pt.Server
	store *storage.Store
	cfg   *config.Config
	dir   string

	msgs chan tea.Msg
	stop chan struct{}
	// printed and copied record what the model wrote to the terminal's
	// scrollback (inline mode) and clipboard, in order.
	printed []string
	copied  []string
	// onFrame, when set, sees the view drawn after every Update, as Bubble
	// Tea draws one; onPiece sees a piece of a print reach the terminal
	// (recordTerminal, inline_test.go).
	onFrame func(v tea.View)
	onPiece func(lines int)
	wg      sync.WaitGroup
	quit    bool
	closeMu sync.Once
}

type harnessOption func(*Options)

func newHarness(t *testing.T, steps []pt.Step, opts ...harnessOption) *harness {
	t.Helper()
	h := &harness{t: t, srv: pt.New(t, steps...), dir: t.TempDir(), msgs: make(chan tea.Msg, 256), stop: make(chan struct{})}
	data := t.TempDir()
	home := t.TempDir()
	cfg, err := config.Load(config.Flags{Model: "gpt-4.1", BaseURL: h.srv.URL, DataDir: data}, h.dir,
		func(k string) string { return map[string]string{"HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	h.cfg = cfg
	h.store, err = storage.Open(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{
		Loop: loop.Options{
			Store:     h.store,
			Provider:  provider.NewOpenAI(provider.Config{BaseURL: h.srv.URL, APIKey: "sk-test"}),
			Tools:     tools.NewRegistry(),
			Config:    cfg,
			Dir:       h.dir,
			OutputDir: filepath.Join(data, "outputs"),
			Sleep:     func(ctx context.Context, d time.Duration) error { return ctx.Err() },
		},
	}
	for _, o := range opts {
		o(&opt)
	}
	h.start(opt)
	t.Cleanup(h.close)
	return h
}

func (h *harness) start(opt Options) {
	h.m = New(opt)
	h.m.printCmd = func(text string) tea.Cmd {
		h.printed = append(h.printed, text)
		return nil
	}
	h.m.clipboardCmd = func(text string) tea.Cmd {
		h.copied = append(h.copied, text)
		return nil
	}
	h.run(h.m.Init())
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.waitFor("the chat to be ready", func(m *Model) bool { return !m.opening })
}

// close ends the model and waits for the commands it started.
func (h *harness) close() {
	h.closeMu.Do(func() {
		h.m.Close()
		close(h.stop)
		h.wg.Wait()
		h.store.Close()
	})
}

// run executes a command on its own goroutine, as Bubble Tea does.
func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		msg := cmd()
		if msg == nil {
			return
		}
		select {
		case h.msgs <- msg:
		case <-h.stop:
		}
	}()
}

// send delivers a message to Update.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
		return
	case tea.QuitMsg:
		h.quit = true
		return
	}
	if v := reflect.ValueOf(msg); v.Type().String() == "tea.sequenceMsg" {
		// Run the commands one after the other, their messages in order.
		cmds := make([]tea.Cmd, v.Len())
		for i := range cmds {
			cmds[i], _ = v.Index(i).Interface().(tea.Cmd)
		}
		h.run(func() tea.Msg {
			for _, c := range cmds {
				if c == nil {
					continue
				}
				if msg := c(); msg != nil {
					select {
					case h.msgs <- msg:
					case <-h.stop:
						return nil
					}
				}
			}
			return nil
		})
		return
	}
	if p, ok := msg.(pieceOut); ok && h.onPiece != nil {
		h.onPiece(p.lines)
	}
	_, cmd := h.m.Update(msg)
	if h.onFrame != nil {
		h.onFrame(h.m.View())
	}
	h.run(cmd)
}

// key presses a key by its name ("enter", "esc", "ctrl+c") or types text.
func (h *harness) key(name string) {
	h.t.Helper()
	h.send(keyPress(name))
}

func (h *harness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyPress(name string) tea.KeyPressMsg {
	switch name {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+o":
		return tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	case "ctrl+q":
		return tea.KeyPressMsg{Code: 'q', Mod: tea.ModCtrl}
	case "ctrl+j":
		return tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl}
	case "ctrl+f":
		return tea.KeyPressMsg{Code: 'f', Mod: tea.ModCtrl}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	}
	if a, ok := strings.CutPrefix(name, "alt+"); ok && len(a) == 1 {
		return tea.KeyPressMsg{Code: rune(a[0]), Mod: tea.ModAlt}
	}
	r := []rune(name)
	return tea.KeyPressMsg{Code: r[0], Text: name}
}

// waitFor feeds messages to the model until cond holds.
func (h *harness) waitFor(what string, cond func(m *Model) bool) {
	h.t.Helper()
	deadline := time.After(15 * time.Second)
	for !cond(h.m) {
		select {
		case msg := <-h.msgs:
			h.send(msg)
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s; screen:\n%s", what, h.screen())
		}
	}
}

// waitScreen waits until the screen shows s.
func (h *harness) waitScreen(s string) {
	h.t.Helper()
	h.waitFor("the screen to show "+s, func(m *Model) bool { return strings.Contains(screenOf(m), s) })
}

func (h *harness) screen() string { return screenOf(h.m) }

// screenOf is the model's view without styles.
func screenOf(m *Model) string { return ansi.Strip(m.View().Content) }

func idle(m *Model) bool { return m.runner != nil && !m.busy && !m.runner.Busy() }

// sendSettled is idle with the last send's answer handled (sentMsg comes
// through the commands, the turn's end through the box, in either order):
// the next Enter then starts its send instead of queueing it (review10).
func sendSettled(m *Model) bool { return idle(m) && !m.sending && len(m.pending) == 0 }
