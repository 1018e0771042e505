package main

// End-to-end regression tests of issue 11's command-line items: the agent's
// own git runs nothing of the repository's (11.2), a retried stream prints
// the final answer only (11.10), the default step cap fails loudly
// (11.13), inspect strips terminal escapes (11.11), and the read-only
// commands work on a read-only data directory (11.15).

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// gitRepo makes e.work a committed git repository with a stat-dirty file.
func gitRepo(t *testing.T, e *env) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = e.work
		cmd.Env = append(e.vars, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(e.work, "main.go"), []byte("package main\n"), 0o644)
	git("add", ".")
	git("commit", "-q", "-m", "init")
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(e.work, "main.go"), future, future)
}

func TestE2EGitConfigRunsNothing(t *testing.T) {
	e := newEnv(t, pt.Text("first"), pt.Text("second"))
	gitRepo(t, e)
	marker := filepath.Join(t.TempDir(), "fsmonitor.ran")
	script := filepath.Join(t.TempDir(), "fsmonitor.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nenv >> "+marker+"\n"), 0o755)
	cfg := filepath.Join(e.work, ".git", "config")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[core]\n\tfsmonitor = " + script + "\n")
	f.Close()
	index := filepath.Join(e.work, ".git", "index")
	before, _ := os.ReadFile(index)

	for _, args := range [][]string{{"run", "hi"}, {"run", "-c", "again"}, {"context", "-c"}, {"sessions", "--all"}} {
		if res := e.run("", args...); res.code != 0 {
			t.Fatalf("agent %v: exit %d: %s", args, res.code, res.stderr)
		}
		if data, err := os.ReadFile(marker); err == nil {
			if bytes.Contains(data, []byte(testKey)) {
				t.Errorf("agent %v ran core.fsmonitor with the API key in its environment", args)
			}
			t.Fatalf("agent %v ran the repository's core.fsmonitor", args)
		}
	}
	// The repository's status still reached the model.
	reqs := e.srv.Requests()
	if len(reqs) == 0 || !bytes.Contains(reqs[0].Body, []byte("## main")) {
		t.Errorf("the system prompt lacks the git status")
	}
	if after, _ := os.ReadFile(index); !bytes.Equal(before, after) {
		t.Error("the agent rewrote .git/index")
	}
}
