package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// writeTree writes n small files under dir, 100 to a directory.
func writeTree(b *testing.B, dir string, n int) {
	b.Helper()
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprintf("d%03d", i/100))
		os.MkdirAll(sub, 0o755)
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%03d.txt", i%100)), []byte(fmt.Sprintf("line one %d\nline two\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStepWithSnapshot is a turn whose one step runs the bash
// command `true` against the fake server, then answers: with checkpoints
// off, and on in a tree of 1,000 and 10,000 files (a "before" snapshot
// before the tool, an "after" one joined at the end of the turn).
func BenchmarkStepWithSnapshot(b *testing.B) {
	needGit(b)
	for _, c := range []struct {
		name  string
		files int
		on    bool
	}{{"off", 1000, false}, {"on-1k", 1000, true}, {"off-10k", 10000, false}, {"on-10k", 10000, true}} {
		b.Run(c.name, func(b *testing.B) {
			h := newHarnessWith(b, func(o *Options, cfg *config.Config) { cfg.Snapshots.Enabled = c.on })
			writeTree(b, h.dir, c.files)
			// The first snapshot of a store reads every file; later ones
			// walk the tree and read what changed.
			h.srv.Add(pt.ToolCalls(pt.Call{ID: "warm", Name: "bash", Args: `{"command":"true"}`}), pt.Text("warm"))
			h.turn("warm up")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				h.srv.Add(pt.ToolCalls(pt.Call{ID: fmt.Sprintf("c%d", i), Name: "bash", Args: `{"command":"true"}`}), pt.Text("ok"))
				if res := h.turn(fmt.Sprintf("run true %d", i)); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}

// BenchmarkUndo100Files undoes a turn whose shell command changed 100
// files of a 1,000-file tree (timed: Undo alone).
func BenchmarkUndo100Files(b *testing.B) {
	needGit(b)
	h := newHarness(b)
	writeTree(b, h.dir, 1000)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		h.srv.Add(pt.ToolCalls(pt.Call{ID: fmt.Sprintf("c%d", i), Name: "bash", Args: fmt.Sprintf(`{"command":"sed -i 's/two/two %d/' d000/*.txt"}`, i)}), pt.Text("ok"))
		if res := h.turn(fmt.Sprintf("change %d", i)); res.Err != nil {
			b.Fatal(res.Err)
		}
		b.StartTimer()
		res, err := h.r.Undo(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Restore.Restored) != 100 {
			b.Fatalf("restored %d files, want 100", len(res.Restore.Restored))
		}
	}
}
