package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/childproc"
	"github.com/ctxloop/agent/internal/config"
)

// TestRunShellRecordsItsGroupWhileItRuns: a !command's process group is
// in the children registry while it runs (a killed agent's next start
// stops it from there) and out of it once the command ended; the output
// printed before a cancel is kept.
func TestRunShellRecordsItsGroupWhileItRuns(t *testing.T) {
	reg := t.TempDir()
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.Children = childproc.Open(reg) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	printed := make(chan struct{})
	var once bool
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := h.r.RunShell(ctx, "echo before-cancel; sleep 60 & wait", func(lines string) {
			if !once && strings.Contains(lines, "before-cancel") {
				once = true
				close(printed)
			}
		})
		if f == nil {
			done <- result{err: err}
			return
		}
		done <- result{out: f.Content, err: err}
	}()
	select {
	case <-printed:
	case <-time.After(10 * time.Second):
		t.Fatal("the command printed nothing")
	}
	recs, _ := filepath.Glob(filepath.Join(reg, "*.json"))
	if len(recs) != 1 {
		t.Fatalf("records while the command runs: %v", recs)
	}
	if b, _ := os.ReadFile(recs[0]); !strings.Contains(string(b), "sleep 60") {
		t.Errorf("record %s", b)
	}
	cancel()
	res := <-done
	if res.err != nil || !strings.Contains(res.out, "before-cancel") {
		t.Fatalf("after cancel: %q, %v", res.out, res.err)
	}
	if recs, _ := filepath.Glob(filepath.Join(reg, "*.json")); len(recs) != 0 {
		t.Errorf("records after the command ended: %v", recs)
	}
}
