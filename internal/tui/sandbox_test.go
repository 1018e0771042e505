package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/sandbox"
)

// /sandbox in the chat: it tells the mode, refuses a word that is not one,
// switches to workspace-write; then a command the sandbox denies opens the
// "run outside the sandbox once" dialog naming the path (no session
// choice), and allowing it runs the command outside.
func TestSlashSandboxAndRunOutsideOnce(t *testing.T) {
	if err := sandbox.Probe(); err != nil {
		t.Skipf("skipping: no sandbox on this machine (%v)", err)
	}
	setting := sandbox.NewSetting(sandbox.Policy{Mode: sandbox.ModeOff})
	h := newHarness(t, []pt.Step{
		pt.ToolCall("c1", "bash", `{"command":"echo in > inside && touch ../outside-sbx"}`),
		pt.Text("all done"),
	}, func(o *Options) { o.Loop.Sandbox = setting })
	h.typeText("/sandbox")
	h.key("enter")
	h.waitScreen("sandbox off")
	h.typeText("/sandbox full")
	h.key("enter")
	h.waitScreen("want off, read-only or workspace-write")
	h.typeText("/sandbox workspace-write")
	h.key("enter")
	h.waitScreen("sandbox workspace-write from the next command")
	if got := setting.Policy().Mode; got != sandbox.ModeWorkspaceWrite {
		t.Fatalf("mode = %s", got)
	}
	h.typeText("write both")
	h.key("enter")
	h.waitScreen("run outside the sandbox once")
	screen := strings.Join(strings.Fields(h.screen()), " ")
	if !strings.Contains(screen, "../outside-sbx") || strings.Contains(screen, "for this session") {
		t.Errorf("the dialog should name the path and offer no session choice:\n%s", h.screen())
	}
	h.waitFor("the dialog to take its keys", func(m *Model) bool { return m.questions.Armed() })
	h.key("alt+a")
	h.waitScreen("all done")
	if _, err := os.Stat(filepath.Join(filepath.Dir(h.dir), "outside-sbx")); err != nil {
		t.Errorf("allowed once outside the sandbox, the command did not write: %v", err)
	}
}
