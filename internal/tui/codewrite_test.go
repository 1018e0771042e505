package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/tools"
)

// TestWriteThatBecomesCodeAsksInTheChat: with write allowed, the model's
// write to .envrc still reaches the permission dialog, which says why it
// asks and offers no allow for the session; denied, nothing is written.
func TestWriteThatBecomesCodeAsksInTheChat(t *testing.T) {
	h := newHarness(t, []pt.Step{
		pt.ToolCall("c1", "write", `{"path":".envrc","content":"touch pwned\n"}`),
		pt.Text("all done"),
	}, func(o *Options) { o.PermModes = map[string]tools.Mode{"write": tools.ModeAllow} })
	h.typeText("set up the env")
	h.key("enter")
	h.waitScreen("tab answers here")
	s := strings.Join(strings.Fields(h.screen()), " ")
	for _, want := range []string{"direnv", "always asks", "never allowed for the session"} {
		if !strings.Contains(s, want) {
			t.Errorf("the dialog does not say %q:\n%s", want, h.screen())
		}
	}
	h.key("alt+d")
	h.key("enter")
	h.waitScreen("all done")
	if _, err := os.Stat(filepath.Join(h.dir, ".envrc")); err == nil {
		t.Error(".envrc was written although denied")
	}
}

// TestCodeWriteDialogOffersOneAllowOnce: a write to a file that runs as
// code can only be allowed once, so the dialog shows one "allow once"
// button and no session choice (alt+s does not answer it; three choices
// under tab).
func TestCodeWriteDialogOffersOneAllowOnce(t *testing.T) {
	h := newHarness(t, []pt.Step{
		pt.ToolCall("c1", "write", `{"path":".envrc","content":"touch pwned\n"}`),
		pt.Text("all done"),
	}, func(o *Options) { o.PermModes = map[string]tools.Mode{"write": tools.ModeAllow} })
	h.typeText("set up the env")
	h.key("enter")
	h.waitScreen("tab answers here")
	if n := strings.Count(strings.Join(strings.Fields(h.screen()), " "), "allow once"); n != 1 {
		t.Errorf("the dialog shows %d \"allow once\", want 1:\n%s", n, h.screen())
	}
	h.key("alt+s") // no session choice: not the dialog's key
	h.key("alt+d") // still open: denying asks for a reason
	h.waitScreen("a line for the model")
	h.key("enter")
	h.waitScreen("all done")
	if _, err := os.Stat(filepath.Join(h.dir, ".envrc")); err == nil {
		t.Error(".envrc was written although denied")
	}
}
