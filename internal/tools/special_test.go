package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Issue 11.4: FIFOs and other special files are skipped, never opened (an
// open of a FIFO for reading blocks until a writer comes), and every tool
// call returns promptly once cancelled.

// fifoTree returns an Env whose directory holds a text file and FIFOs (one
// named like a .gitignore, which the walk loads, one at .git/info/exclude,
// which gitignore.ForRoot loads).
func fifoTree(t *testing.T) *Env {
	t.Helper()
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"a.txt": "needle here\n", "sub/b.txt": "needle too\n", ".git/HEAD": "ref: x\n"})
	for _, p := range []string{"pipe", "sub/pipe.txt", "sub/.gitignore", ".git/info/exclude"} {
		p = filepath.Join(env.Dir, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
	}
	return env
}

// within runs f and fails the test if it has not returned within d (f is
// then left running: the test is failing anyway).
func returnsWithin(t *testing.T, d time.Duration, what string, f func() Result) Result {
	t.Helper()
	done := make(chan Result, 1)
	go func() { done <- f() }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case res := <-done:
		return res
	case <-timer.C:
		t.Fatalf("%s did not return within %v (blocked on a FIFO?)", what, d)
		return Result{}
	}
}

func TestSpecialFilesAreSkippedNotOpened(t *testing.T) {
	env := fifoTree(t)
	const bound = 5 * time.Second // generous: a blocked open never returns

	res := returnsWithin(t, bound, "grep over a directory with FIFOs", func() Result {
		return call(t, env, "grep", map[string]any{"pattern": "needle"})
	})
	if res.IsError {
		t.Fatal(res.Output)
	}
	mustContain(t, res.Output, "a.txt:1: needle here", "sub/b.txt:1: needle too", "skipped 3 special files")
	if res.Metadata["skipped_special"] != 3 {
		t.Errorf("metadata %v", res.Metadata)
	}

	res = returnsWithin(t, bound, "grep on a FIFO", func() Result {
		return call(t, env, "grep", map[string]any{"pattern": "x", "path": "pipe"})
	})
	if !res.IsError {
		t.Errorf("grep on a FIFO: %+v", res)
	}
	mustContain(t, res.Output, "not a regular file", "FIFO")

	res = returnsWithin(t, bound, "read of a FIFO", func() Result {
		return call(t, env, "read", map[string]any{"path": "pipe"})
	})
	if !res.IsError {
		t.Errorf("read of a FIFO: %+v", res)
	}
	mustContain(t, res.Output, "pipe is not a regular file", "FIFO")

	res = returnsWithin(t, bound, "glob", func() Result {
		return call(t, env, "glob", map[string]any{"pattern": "**/*"})
	})
	mustContain(t, res.Output, "a.txt", "sub/b.txt", "skipped 3 special files")
	mustNotContain(t, res.Output, "sub/pipe.txt\n")

	res = returnsWithin(t, bound, "ls", func() Result {
		return call(t, env, "ls", map[string]any{})
	})
	mustContain(t, res.Output, "pipe", "a.txt")
}

// stuckTool blocks until release is closed, whatever its context says: a
// tool stuck in a system call.
type stuckTool struct {
	started chan struct{}
	release chan struct{}
}

func (stuckTool) Name() string                { return "stuck" }
func (stuckTool) Description() string         { return "blocks" }
func (stuckTool) Parameters() json.RawMessage { return objectSchema() }
func (stuckTool) ReadOnly() bool              { return true }
func (s stuckTool) Run(ctx context.Context, env *Env, call Call) (Result, error) {
	close(s.started)
	<-s.release
	return Result{Output: "finished late"}, nil
}

func TestRunReturnsPromptlyWhenCancelled(t *testing.T) {
	env := newEnv(t)
	tool := stuckTool{started: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(tool.release) }) // the abandoned goroutine ends with the test
	r := newRegistry(tool)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan Result, 1)
	go func() { done <- r.Run(ctx, env, Call{ID: "c", Name: "stuck", Input: json.RawMessage(`{}`)}) }()
	<-tool.started
	cancel()
	cancelledAt := time.Now()
	timer := time.NewTimer(2 * time.Second) // generous; the promise is 500 ms
	defer timer.Stop()
	select {
	case res := <-done:
		if d := time.Since(cancelledAt); d > 500*time.Millisecond {
			t.Errorf("Run returned %v after the cancel, want within 500ms", d)
		}
		if !res.IsError || res.Metadata["cancelled"] != true {
			t.Errorf("result %+v", res)
		}
		mustContain(t, res.Output, "cancelled")
	case <-timer.C:
		t.Fatal("Run did not return after the cancel: the tool is stuck and Run waits for it")
	}
}

// lateTool reports progress after it is released: an abandoned tool whose
// system call finally returned.
type lateTool struct {
	stuckTool
	finished chan struct{}
}

func (l lateTool) Run(ctx context.Context, env *Env, call Call) (Result, error) {
	close(l.started)
	<-l.release
	call.Progress("late line")
	close(l.finished)
	return Result{Output: "finished late"}, nil
}

func TestAbandonedToolCallsNoCallback(t *testing.T) {
	env := newEnv(t)
	tool := lateTool{stuckTool{started: make(chan struct{}), release: make(chan struct{})}, make(chan struct{})}
	r := newRegistry(tool)
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	go func() { <-tool.started; cancel() }()
	res := r.Run(ctx, env, Call{ID: "c", Name: "stuck", Input: json.RawMessage(`{}`), Progress: func(string) { calls.Add(1) }})
	if res.Metadata["abandoned"] != true {
		t.Fatalf("result %+v, want an abandoned call", res)
	}
	close(tool.release)
	<-tool.finished
	if n := calls.Load(); n != 0 {
		t.Errorf("the caller's progress callback ran %d times after Run returned", n)
	}
}
