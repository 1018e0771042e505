package tui

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/provider"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// TestProgram runs the chat in a real Bubble Tea program (teatest): a
// message typed and sent reaches the server, the answer is drawn, and
// Ctrl+C twice ends the program with the session kept.
func TestProgram(t *testing.T) {
	srv := pt.New(t, pt.Text("Program answer: forty-two."))
	dir, data, home := t.TempDir(), t.TempDir(), t.TempDir()
	cfg, err := config.Load(config.Flags{Model: "gpt-4.1", BaseURL: srv.URL, DataDir: data}, dir,
		func(k string) string { return map[string]string{"HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := New(Options{Loop: loop.Options{
		Store: st, Provider: provider.NewOpenAI(provider.Config{BaseURL: srv.URL, APIKey: "sk-test"}),
		Tools: tools.NewRegistry(), Config: cfg, Dir: dir, OutputDir: filepath.Join(data, "outputs"),
	}})
	defer m.Close()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))

	tm.Type("what is the answer?")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	if err := srv.WaitRequests(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("forty-two")) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))

	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	if got := srv.Requests()[0].Chat.Messages; got[len(got)-1].Content != "what is the answer?" {
		t.Errorf("request ends with %q", got[len(got)-1].Content)
	}
	list, err := st.ListSessions(context.Background(), dir)
	if err != nil || len(list) != 1 || list[0].Title != "what is the answer?" {
		t.Errorf("sessions = %+v, %v", list, err)
	}
}
