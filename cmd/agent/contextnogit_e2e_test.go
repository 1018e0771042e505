package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EContextRunsNoGit: `agent context --json` prices a stored session
// from what is stored: it runs no git (a `git` first in PATH records
// being run), and its total is what it was right after the run, though
// the tree changed since (the system prompt is counted as the running
// session last counted it).
func TestE2EContextRunsNoGit(t *testing.T) {
	// No usage reported: the total is our own count, system prompt and all.
	e := newEnv(t, pt.Reply(pt.TextChunk("short"), pt.FinishChunk("stop")))
	gitRepo(t, e)
	if res := e.run("", "run", "hi"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	total := func() float64 {
		t.Helper()
		out := e.run("", "context", "--json")
		if out.code != 0 {
			t.Fatalf("context: exit %d: %s", out.code, out.stderr)
		}
		var snap map[string]any
		if err := json.Unmarshal([]byte(out.stdout), &snap); err != nil {
			t.Fatal(err)
		}
		return snap["total"].(float64)
	}
	before := total()
	// The tree changes: a status gathered now would be longer.
	for i := range 20 {
		os.WriteFile(filepath.Join(e.work, "new"+strings.Repeat("x", i)+".go"), []byte("package main\n"), 0o644)
	}
	bin := t.TempDir()
	ran := filepath.Join(bin, "git-ran")
	script := "#!/bin/sh\necho \"$@\" >> " + ran + "\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, v := range e.vars {
		if strings.HasPrefix(v, "PATH=") {
			e.vars[i] = "PATH=" + bin + string(os.PathListSeparator) + strings.TrimPrefix(v, "PATH=")
		}
	}
	after := total()
	if b, err := os.ReadFile(ran); err == nil {
		t.Errorf("agent context ran git:\n%s", b)
	}
	if after != before {
		t.Errorf("agent context total %v after the tree changed, %v before", after, before)
	}
}
