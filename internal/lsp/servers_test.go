package lsp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/tools"
)

// fakeConfig serves .fk files with this test binary as the fake server
// of the given behaviour.
func fakeConfig(t *testing.T, mode string, waitMS int) config.LSP {
	t.Setenv("LSP_FAKE", mode)
	return config.LSP{WaitMS: waitMS, Servers: map[string]config.LSPServer{"fake": {Command: os.Args[0], Extensions: []string{".fk"}}}}
}

// session is a directory with its tools env watched by s.
func session(t *testing.T, s *Servers) *tools.Env {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &tools.Env{Dir: dir, Edits: s}
}

// run calls a tool through the registry, as the loop does.
func run(t *testing.T, env *tools.Env, name string, input map[string]any) tools.Result {
	t.Helper()
	b, _ := json.Marshal(input)
	res := tools.NewRegistry().With(env.Edits.(*Servers).Tool()).Run(context.Background(), env, tools.Call{ID: "c", Name: name, Input: b})
	if res.IsError {
		t.Fatalf("%s failed: %s", name, res.Output)
	}
	return res
}

func TestEditReportsOnlyTheDiagnosticsItIntroduced(t *testing.T) {
	s := New(fakeConfig(t, "good", 5000))
	env := session(t, s)
	// A new file with one error: it is introduced.
	res := run(t, env, "write", map[string]any{"path": "a.fk", "content": "one\nBAD two\nthree\n"})
	if !strings.Contains(res.Output, "Diagnostics introduced by this edit (fake):\na.fk:2:1: error: bad thing") {
		t.Fatalf("write's result lacks the error it introduced:\n%s", res.Output)
	}
	// Lines inserted above the old error move it: not new. A second one is.
	res = run(t, env, "edit", map[string]any{"path": "a.fk", "old_string": "one\n", "new_string": "zero\none\nx BAD\n"})
	if !strings.Contains(res.Output, "a.fk:3:3: error: bad thing") || strings.Contains(res.Output, "a.fk:4:") {
		t.Fatalf("edit's result should name only the new error on line 3:\n%s", res.Output)
	}
	// Fixing one reports nothing.
	res = run(t, env, "edit", map[string]any{"path": "a.fk", "old_string": "x BAD", "new_string": "x ok"})
	if strings.Contains(res.Output, "Diagnostics") {
		t.Fatalf("a fix reported diagnostics:\n%s", res.Output)
	}
	// A file of another extension is left alone.
	res = run(t, env, "write", map[string]any{"path": "b.txt", "content": "BAD\n"})
	if strings.Contains(res.Output, "iagnostics") {
		t.Fatalf("a .txt file got diagnostics:\n%s", res.Output)
	}
	// The tool lists the file's current diagnostics.
	if out := run(t, env, "diagnostics", map[string]any{"path": "a.fk"}).Output; out != "a.fk:4:1: error: bad thing" {
		t.Fatalf("diagnostics{path}: %q", out)
	}
	if out := run(t, env, "diagnostics", map[string]any{}).Output; out != "a.fk:4:1: error: bad thing" {
		t.Fatalf("diagnostics{}: %q", out)
	}
}

func TestServerThatFailsNeverFailsTheEdit(t *testing.T) {
	for _, mode := range []string{"crash", "hang", "flood", "mute", "missing"} {
		t.Run(mode, func(t *testing.T) {
			cfg := fakeConfig(t, mode, 300)
			if mode == "missing" {
				cfg.Servers["fake"] = config.LSPServer{Command: "no-such-language-server-xyz", Extensions: []string{".fk"}}
			}
			s := New(cfg)
			env := session(t, s)
			var notes int
			for i := range 4 {
				began := time.Now()
				res := run(t, env, "write", map[string]any{"path": "a.fk", "content": strings.Repeat("BAD\n", i+1)})
				if took := time.Since(began); took > 300*time.Millisecond+700*time.Millisecond {
					t.Errorf("edit %d took %v with a wait of 300ms", i, took)
				}
				if !strings.HasPrefix(res.Output, "Created a.fk") && !strings.HasPrefix(res.Output, "Overwrote a.fk") {
					t.Fatalf("edit %d: %s", i, res.Output)
				}
				if strings.Contains(res.Output, "diagnostics unavailable: ") {
					notes++
				}
				if strings.Contains(res.Output, "Diagnostics introduced") {
					t.Fatalf("edit %d reported diagnostics from a %s server:\n%s", i, mode, res.Output)
				}
			}
			if notes != 1 {
				t.Fatalf("diagnostics unavailable noted %d times, want once", notes)
			}
			st := s.Status()
			if len(st) != 1 || st[0].LastError == "" {
				t.Fatalf("status names no error: %+v", st)
			}
			t.Logf("%s: %s (%s)", mode, st[0].State, st[0].LastError)
		})
	}
}

func TestNoServerConfiguredIsNil(t *testing.T) {
	if New(config.LSP{}) != nil || New(config.LSP{Disabled: true, Servers: map[string]config.LSPServer{"go": {Command: "gopls"}}}) != nil {
		t.Fatal("New made servers with none configured, or with lsp off")
	}
	var s *Servers
	s.Close()
	if s.Tool() != nil || s.Status() != nil {
		t.Fatal("a nil Servers offers something")
	}
}

// goplsPath finds gopls on PATH or in ~/go/bin, or skips.
func goplsPath(t testing.TB) string {
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		if p := filepath.Join(home, "go", "bin", "gopls"); exec.Command(p, "version").Run() == nil {
			return p
		}
	}
	t.Skip("gopls is not installed: go install golang.org/x/tools/gopls@v0.23.0 (.ci/run does)")
	return ""
}

func TestGoplsReportsTheTypeErrorAnEditIntroduced(t *testing.T) {
	gopls := goplsPath(t)
	s := New(config.LSP{WaitMS: 20000, Servers: map[string]config.LSPServer{"go": {Command: gopls}}})
	env := session(t, s)
	run(t, env, "write", map[string]any{"path": "go.mod", "content": "module example.com/m\n\ngo 1.22\n"})
	res := run(t, env, "write", map[string]any{"path": "main.go", "content": "package main\n\nfunc main() {\n\tx := 1\n\t_ = x\n}\n"})
	if strings.Contains(res.Output, "Diagnostics") || strings.Contains(res.Output, "unavailable") {
		t.Fatalf("a clean file reported:\n%s", res.Output)
	}
	// A type error: reported.
	res = run(t, env, "edit", map[string]any{"path": "main.go", "old_string": "_ = x", "new_string": "var s string = x\n\t_ = s"})
	if !strings.Contains(res.Output, "Diagnostics introduced by this edit (go):\nmain.go:5:") || !strings.Contains(res.Output, "error: ") {
		t.Fatalf("the type error is not in the edit's result:\n%s", res.Output)
	}
	// Its fix: nothing.
	res = run(t, env, "edit", map[string]any{"path": "main.go", "old_string": "var s string = x", "new_string": "var s int = x"})
	if strings.Contains(res.Output, "Diagnostics") {
		t.Fatalf("the fix reported diagnostics:\n%s", res.Output)
	}
	// An already broken file: only what the edit adds.
	res = run(t, env, "edit", map[string]any{"path": "main.go", "old_string": "_ = s", "new_string": "_ = s\n\t_ = undefinedOne"})
	if !strings.Contains(res.Output, "main.go:7:6: error: undefined: undefinedOne") {
		t.Fatalf("the first undefined name is not reported:\n%s", res.Output)
	}
	res = run(t, env, "edit", map[string]any{"path": "main.go", "old_string": "x := 1", "new_string": "x := 1\n\ty := undefinedTwo\n\t_ = y"})
	_, found, _ := strings.Cut(res.Output, "Diagnostics introduced by this edit (go):\n")
	if found != "main.go:5:7: error: undefined: undefinedTwo" {
		t.Fatalf("want only undefinedTwo reported, got %q in:\n%s", found, res.Output)
	}
}
