package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/hooks"
	"github.com/ctxloop/agent/internal/loop"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/tools"
)

// TestTaskChildAsksForTheParentsHookFiles: a file the session's hooks run
// is code for its subagents too: with write allowed, the child's write to
// it asks (the child runs no hooks of its own, yet the parent's run it).
func TestTaskChildAsksForTheParentsHookFiles(t *testing.T) {
	asker := &stopper{}
	var dir string
	p := newParent(t, func(o *loop.Options) {
		dir = o.Dir
		o.Perms = tools.NewPermissions(map[string]tools.Mode{"write": tools.ModeAllow}, asker, false)
		o.SessionTools = SessionTools(config.Task{Tools: []string{"read", "write"}})
		o.Hooks, _ = hooks.New([]hooks.Hook{{Event: hooks.Stop, Command: "./check.sh"}}, hooks.Options{})
	},
		taskCall("call_task", "fix the check", "Rewrite check.sh."),
		pt.ToolCall("c1", "write", `{"path":"check.sh","content":"touch pwned\n"}`),
	)
	p.turn("go")
	if len(asker.asked) != 1 || !strings.Contains(asker.asked[0], "check.sh") {
		t.Errorf("asked %q, want the child's write of check.sh", asker.asked)
	}
	if _, err := os.Stat(filepath.Join(dir, "check.sh")); !os.IsNotExist(err) {
		t.Errorf("check.sh written without a question: %v", err)
	}
}
