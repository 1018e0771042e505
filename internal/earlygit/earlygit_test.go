package earlygit

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/gitcmd"
)

func TestNamesRun(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"run", "hi"}, true},
		{[]string{"run"}, true},
		{[]string{"--model", "gpt-4.1", "run", "hi"}, true},
		{[]string{"--model=gpt-4.1", "--data-dir", "/d", "run", "--yes", "hi"}, true},
		{[]string{"--config", "run", "sessions"}, false}, // "run" is the config file
		{[]string{}, false},                              // the chat
		{[]string{"--continue"}, false},
		{[]string{"sessions", "run"}, false},
		{[]string{"--", "run"}, false},
		{[]string{"-test.run", "TestX"}, false},
	} {
		if got := namesRun(c.args); got != c.want {
			t.Errorf("namesRun(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// TestTakeOnceForTheSameCall checks that the early result goes to the
// first caller asking for the same directory and arguments, and only to
// it.
func TestTakeOnceForTheSameCall(t *testing.T) {
	ctx := context.Background()
	release := make(chan struct{})
	fake := func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		<-release
		return []byte("## main\n"), errors.New("exit 0?")
	}
	mu.Lock()
	early = start("/repo", StatusArgs, fake)
	mu.Unlock()
	if _, ok, _ := Take(ctx, "/other", StatusArgs...); ok {
		t.Fatal("another directory took the result")
	}
	if _, ok, _ := Take(ctx, "/repo", "status"); ok {
		t.Fatal("other arguments took the result")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	mu.Lock()
	pending := early
	mu.Unlock()
	if _, ok, _ := Take(cancelled, "/repo", StatusArgs...); ok {
		t.Fatal("a cancelled caller got a result")
	}
	mu.Lock()
	early = pending // the cancelled caller dropped it; put it back
	mu.Unlock()
	close(release)
	out, ok, err := Take(ctx, "/repo", StatusArgs...)
	if !ok || string(out) != "## main\n" || err == nil {
		t.Fatalf("Take = %q, %v, %v", out, ok, err)
	}
	if _, ok, _ := Take(ctx, "/repo", StatusArgs...); ok {
		t.Fatal("the result was handed out twice")
	}
}

// TestEarlyStatusMatchesGit runs the real thing in a repository: what the
// early run hands over is what gitcmd says when asked afterwards.
func TestEarlyStatusMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q", "-b", "trunk").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	mu.Lock()
	early = start(dir, StatusArgs, gitcmd.Output)
	mu.Unlock()
	got, ok, err := Take(context.Background(), dir, StatusArgs...)
	if !ok || err != nil {
		t.Fatalf("Take: %v, %v", ok, err)
	}
	want, err := gitcmd.Output(context.Background(), dir, StatusArgs...)
	if err != nil || !bytes.Equal(got, want) || !bytes.Contains(got, []byte("trunk")) {
		t.Fatalf("early %q, later %q (%v)", got, want, err)
	}
}

// TestTakeWithinStopsGitAtTheBudget: a status slower than the budget is
// given up (and git stopped) once the budget is spent, not waited for.
func TestTakeWithinStopsGitAtTheBudget(t *testing.T) {
	stopped := make(chan struct{})
	slow := func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		<-ctx.Done() // a repository git takes a long time over
		close(stopped)
		return nil, ctx.Err()
	}
	mu.Lock()
	early = start("/big", StatusArgs, slow)
	mu.Unlock()
	begin := time.Now()
	out, ok, err := TakeWithin(context.Background(), 20*time.Millisecond, "/big", StatusArgs...)
	if waited := time.Since(begin); waited > Timeout/2 {
		t.Fatalf("waited %v for a status over its budget", waited)
	}
	if !ok || !errors.Is(err, ErrNotInTime) || out != nil {
		t.Fatalf("TakeWithin = %q, %v, %v; want ok and ErrNotInTime", out, ok, err)
	}
	<-stopped // git's context was cancelled, not left to run to Timeout
	if _, ok, _ := Take(context.Background(), "/big", StatusArgs...); ok {
		t.Fatal("the run was handed out again")
	}
}
