package loop

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/storage"
)

// TestOneStepTurnOpensOneConnection: a session opened and answering one
// prompt (what `agent run hi` does) reads and writes through the store's
// one writing connection: no reading connection is opened on the way —
// each costs a file open and a parse of the whole schema before the first
// request (issue 36: the headless start at the floor). Counted as this
// process's open files of agent.db (Linux's /proc), so that any read of
// the start path through the readers fails it, whoever added it.
func TestOneStepTurnOpensOneConnection(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts open files through /proc/self/fd")
	}
	for _, tt := range []struct {
		name string
		step pt.Step
	}{
		{"plain answer", pt.Text("Hello there.")},
		// A provider's usage report far from the request's size: the
		// first suspect report of the session is noted in its event log
		// once, after reading whether the log has one.
		{"suspect usage", pt.Reply(pt.TextChunk("Hello there."), pt.FinishChunk("stop"),
			pt.UsageChunk(pt.Usage{Prompt: 1, Completion: 3}))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.step)
			if res := h.turn("hi"); res.Err != nil {
				t.Fatal(res.Err)
			}
			db := filepath.Join(h.data, storage.DBName)
			if n := openFilesOf(t, db); n != 1 {
				t.Fatalf("%d open files of %s after a one-step turn, want 1 (the writer)", n, db)
			}
		})
	}
}

// openFilesOf counts this process's open file descriptors on path.
func openFilesOf(t *testing.T, path string) int {
	t.Helper()
	want, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == want {
			n++
		}
	}
	return n
}
