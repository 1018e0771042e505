package overlay

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/lsp"
)

// TestLSPDrawerShowsServersAndRestartsAFailedOne: the drawer shows each
// server's state, files, restarts and last error (escapes stripped); r
// on a failed server restarts it through lsp.Servers.Restart, and on a
// server that has not failed does nothing.
func TestLSPDrawerShowsServersAndRestartsAFailedOne(t *testing.T) {
	s := lsp.New(config.LSP{Servers: map[string]config.LSPServer{"go": {Command: "gopls", Extensions: []string{".go"}}}})
	defer s.Close()
	rows := []lsp.Status{
		{Name: "go", Command: "gopls", Extensions: []string{".go"}, State: "running", Files: 3},
		{Name: "py", Command: "pyright", State: "failed", Restarts: 4, LastError: "crashed \x1b[31mred"},
	}
	d := NewLSPDrawer()
	view := strings.Join(d.View(fakeHost{}, rows, 100, 20), "\n")
	for _, want := range []string{"go  running  gopls (.go)", "3 files checked · 0 restarts", "py  failed", "4 restarts · crashed [31mred"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "\x1b[31m") {
		t.Error("a raw escape from the last error reached the view")
	}
	if res, cmd := d.Update(fakeHost{}, s, rows, tea.KeyPressMsg{Code: 'r', Text: "r"}); res != Keep || cmd != nil {
		t.Errorf("r on a running server = %v, %v", res, cmd != nil)
	}
	d.Update(fakeHost{}, s, rows, tea.KeyPressMsg{Code: tea.KeyDown})
	_, cmd := d.Update(fakeHost{}, s, rows, tea.KeyPressMsg{Code: 'r', Text: "r"})
	if cmd == nil {
		t.Fatal("r on a failed server did nothing")
	}
	msg, ok := cmd().(LSPRestartedMsg)
	if !ok || msg.Name != "py" || msg.Err == nil {
		t.Errorf("restart = %+v, want py's (not configured here: an error)", msg)
	}
	if res, _ := d.Update(fakeHost{}, s, rows, tea.KeyPressMsg{Code: tea.KeyEscape}); res != Close {
		t.Errorf("esc = %v, want Close", res)
	}
}
