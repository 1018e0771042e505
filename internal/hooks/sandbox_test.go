package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/sandbox"
)

// A hook that opts into the sandbox writes the session's directory but
// not outside it; one that does not is unconfined as before.
func TestFireSandboxedHook(t *testing.T) {
	if err := sandbox.Probe(); err != nil {
		t.Skipf("skipping: no sandbox on this machine (%v)", err)
	}
	root := t.TempDir()
	dir := filepath.Join(root, "ws")
	os.MkdirAll(dir, 0o755)
	r := newRunner(t,
		Hook{Event: Stop, Command: `touch inside; touch ../outside-confined`, Sandbox: sandbox.ModeWorkspaceWrite},
		Hook{Event: Stop, Command: `touch ../outside-free`},
	)
	o := r.Fire(context.Background(), Event{Name: Stop, Dir: dir})
	if len(o.Runs) != 2 {
		t.Fatalf("runs = %+v", o.Runs)
	}
	if !strings.Contains(o.Runs[0].Output, "Read-only file system") {
		t.Errorf("the confined hook's output = %q", o.Runs[0].Output)
	}
	for path, want := range map[string]bool{
		filepath.Join(dir, "inside"): true, filepath.Join(root, "outside-confined"): false, filepath.Join(root, "outside-free"): true,
	} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", path, err == nil, want)
		}
	}
}

// A hook whose sandbox is not a mode does not run, with a warning.
func TestPlanRefusesABadSandboxMode(t *testing.T) {
	cfg := &config.Config{Hooks: config.Hooks{Stop: {{Hooks: []config.HookCommand{{Type: "command", Command: "true", Sandbox: "full"}}}}}}
	p := FromConfig(cfg, nil)
	if len(p.Run) != 0 || !strings.Contains(strings.Join(p.Warnings, "\n"), `sandbox "full"`) {
		t.Fatalf("run %v warnings %v", p.Run, p.Warnings)
	}
}
