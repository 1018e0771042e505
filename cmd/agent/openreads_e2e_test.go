package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EResumeRunOpensTheDatabaseOnce: `agent run -c` on a stored
// session opens its database once — the writing connection — and no
// reading connection (storage/openreads.go: a second open of the file,
// its WAL index and a parse of the whole schema). Counted while the run
// waits for its answer, from the files the running process holds open.
func TestE2EResumeRunOpensTheDatabaseOnce(t *testing.T) {
	e := newEnv(t)
	db := filepath.Join(e.data, "agent.db")
	opens := make(chan int, 4)
	e.srv.Handle(func(pt.Request) pt.Step {
		opens <- openFilesOf(t, db)
		return pt.Text(benchAnswer)
	})
	seedLongSession(t, e.data, e.work, 1_000)
	r := e.run("", "run", "-c", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, benchAnswer) {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if reqs := e.srv.Requests(); len(reqs) != 1 || len(reqs[0].Chat.Messages) < 100 {
		t.Fatalf("the request did not send the stored session's window")
	}
	if n := <-opens; n != 1 {
		t.Fatalf("the resumed run held %d open files of %s while it waited for its answer, want 1 (the writing connection)", n, db)
	}
}

// openFilesOf counts the descriptors of every process of this user that
// point at path.
func openFilesOf(t *testing.T, path string) int {
	t.Helper()
	procs, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	n := 0
	for _, p := range procs {
		fds, err := os.ReadDir(filepath.Join("/proc", p.Name(), "fd"))
		if err != nil {
			continue // not a process, or not ours
		}
		for _, fd := range fds {
			if to, err := os.Readlink(filepath.Join("/proc", p.Name(), "fd", fd.Name())); err == nil && to == path {
				n++
			}
		}
	}
	return n
}
