package tools

import (
	"context"
	"github.com/ctxloop/agent/internal/jobs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/sandbox"
)

func sandboxEnv(t testing.TB, mode sandbox.Mode) *Env {
	t.Helper()
	if err := sandbox.Probe(); err != nil {
		t.Skipf("no sandbox on this machine, skipping: %v", err)
	}
	env := newEnv(t)
	env.Dir = filepath.Join(env.Dir, "ws")
	if err := os.MkdirAll(filepath.Join(env.Dir, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	env.Sandbox = sandbox.NewSetting(sandbox.Policy{Mode: mode})
	return env
}

// Confined, bash needs no approval, even headless without --yes; the
// configuration's deny still holds, and off asks as before.
func TestBashSandboxIsThePermission(t *testing.T) {
	env := sandboxEnv(t, sandbox.ModeWorkspaceWrite)
	c := mkCall("bash", map[string]any{"command": "go test ./... && git diff"})
	if ok, denial, _ := NewPermissions(nil, nil, false).Check(context.Background(), env, c); !ok {
		t.Fatalf("sandboxed bash was denied headless: %s", denial)
	}
	if ok, _, _ := NewPermissions(map[string]Mode{"bash": ModeDeny}, nil, false).Check(context.Background(), env, c); ok {
		t.Fatal("permissions.bash = deny was overridden by the sandbox")
	}
	env.Sandbox.SetMode(sandbox.ModeOff)
	if ok, _, _ := NewPermissions(nil, nil, false).Check(context.Background(), env, c); ok {
		t.Fatal("sandbox off: bash ran without approval")
	}
}

// A denied write is named to the model with how to allow it, and nothing
// is written; a write inside the workspace goes through.
func TestBashSandboxExplainsDenials(t *testing.T) {
	env := sandboxEnv(t, sandbox.ModeWorkspaceWrite)
	for _, tc := range []struct{ command, want string }{
		{"touch ../outside", "write to ../outside"},
		{"echo x > .git/hooks/x", ".git stays read-only"},
		{"cat /proc/$PPID/environ", "/proc/0/environ"},
		{"echo > /dev/tcp/127.0.0.1/9", "network connection to 127.0.0.1:9"},
	} {
		res := call(t, env, "bash", map[string]any{"command": tc.command})
		if !res.IsError || !strings.Contains(res.Output, "[sandbox (workspace-write): the command was denied") || !strings.Contains(res.Output, tc.want) {
			t.Errorf("%s: want a sandbox note naming %q, got %q", tc.command, tc.want, res.Output)
		}
		if res.Metadata["sandbox_denied"] != true {
			t.Errorf("%s: metadata %v", tc.command, res.Metadata)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(env.Dir), "outside")); err == nil {
		t.Fatal("../outside was written")
	}
	res := call(t, env, "bash", map[string]any{"command": "echo ok > inside && cat inside"})
	if res.IsError || !strings.Contains(res.Output, "ok") || strings.Contains(res.Output, "sandbox") {
		t.Fatalf("workspace write: %+v", res)
	}
	// An ordinary failure carries no sandbox note.
	if res := call(t, env, "bash", map[string]any{"command": "echo FAIL; exit 1"}); strings.Contains(res.Output, "[sandbox") {
		t.Fatalf("a plain failure was blamed on the sandbox: %q", res.Output)
	}
}

// In the chat the user is asked to run a denied command outside the
// sandbox once; yes runs it again unconfined, no leaves the note.
func TestBashSandboxRunOutsideOnce(t *testing.T) {
	env := sandboxEnv(t, sandbox.ModeWorkspaceWrite)
	for _, allow := range []bool{false, true} {
		var asked []Request
		env.AskOutside = func(_ context.Context, req Request) bool { asked = append(asked, req); return allow }
		res := call(t, env, "bash", map[string]any{"command": "touch ../outside"})
		if len(asked) != 1 || !asked[0].OutsideSandbox || !strings.Contains(asked[0].Reason, "../outside") {
			t.Fatalf("allow=%v: asked %+v", allow, asked)
		}
		_, err := os.Stat(filepath.Join(filepath.Dir(env.Dir), "outside"))
		if allow != (err == nil) || allow == res.IsError {
			t.Fatalf("allow=%v: file written = %v, result %+v", allow, err == nil, res)
		}
	}
}

// BenchmarkBashSandbox runs `true` through bash with the sandbox off and
// in each mode, side by side; p50-ms is the median call (the target: the
// sandbox adds at most 10 ms to it).
func BenchmarkBashSandbox(b *testing.B) {
	for _, mode := range []sandbox.Mode{sandbox.ModeOff, sandbox.ModeWorkspaceWrite, sandbox.ModeReadOnly} {
		b.Run(string(mode), func(b *testing.B) {
			env := newEnv(b)
			if mode != sandbox.ModeOff {
				env = sandboxEnv(b, mode)
			}
			r := NewRegistry()
			c := Call{ID: "c", Name: "bash", Input: []byte(`{"command": "true"}`)}
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				if res := r.Run(context.Background(), env, c); res.IsError {
					b.Fatal(res.Output)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
		})
	}
}

// A background process is confined as a foreground command is: it cannot
// write outside the workspace, and writes inside it.
func TestBashBackgroundIsSandboxed(t *testing.T) {
	env := sandboxEnv(t, sandbox.ModeWorkspaceWrite)
	env.Jobs = jobs.New(0)
	t.Cleanup(func() { env.Jobs.KillAll() })
	res := call(t, env, "bash", map[string]any{"command": "touch ../outside; echo in > inside; echo done", "background": true})
	if res.IsError || !strings.Contains(res.Output, "Started background process") {
		t.Fatalf("start: %+v", res)
	}
	j, err := env.Jobs.Get("bg1")
	if err == nil {
		<-j.Process.Done()
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(env.Dir), "outside")); err == nil {
		t.Error("a background process wrote ../outside through the sandbox")
	}
	if b, err := os.ReadFile(filepath.Join(env.Dir, "inside")); err != nil || string(b) != "in\n" {
		t.Errorf("inside = %q, %v: the workspace was not writable", b, err)
	}
}
