package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// An environment gathered in the background (Options.Environment) is not
// waited for by Open: the first turn waits for it, and its request carries
// it; the calculator then counts it as a synchronous Open's would.
func TestPendingEnvironmentIsWaitedForByTheFirstTurn(t *testing.T) {
	release := make(chan struct{})
	var pending *PendingEnvironment
	opened := make(chan struct{})
	go func() {
		select {
		case <-opened:
		case <-time.After(10 * time.Second):
		}
		close(release)
	}()
	h := newHarnessWith(t, func(o *Options, _ *config.Config) {
		if err := os.WriteFile(filepath.Join(o.Dir, "AGENTS.md"), []byte("marker-from-the-background"), 0o644); err != nil {
			t.Fatal(err)
		}
		pending = &PendingEnvironment{dir: o.Dir, began: time.Now(), done: make(chan struct{})}
		go func() {
			<-release
			pending.env = DetectEnvironment(context.Background(), o.Dir, config.UserAgentsFile(getenv))
			close(pending.done)
		}()
		o.Environment = pending
	}, pt.Text("one"))
	select {
	case <-pending.done:
		t.Fatal("the environment was gathered before Open returned: Open waited for it")
	default:
	}
	close(opened)
	if res := h.turn("first"); res.Err != nil {
		t.Fatal(res.Err)
	}
	sys := h.request(0)
	if sys[0].Content != stablePrompt || !strings.Contains(sys[1].Content, "marker-from-the-background") {
		t.Errorf("the first request's system messages lack the gathered environment:\n%v", sys[:2])
	}
	assertReadingMatches(t, h, "after the first turn")
}

// A pending environment gathered for another directory (a session resumed
// elsewhere) is not used: Open gathers its own.
func TestPendingEnvironmentForAnotherDirIsIgnored(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, _ *config.Config) {
		if err := os.WriteFile(filepath.Join(o.Dir, "AGENTS.md"), []byte("marker-of-the-session-dir"), 0o644); err != nil {
			t.Fatal(err)
		}
		o.Environment = GatherEnvironment(context.Background(), t.TempDir())
	}, pt.Text("one"))
	if res := h.turn("first"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if sys := h.request(0); !strings.Contains(sys[1].Content, "marker-of-the-session-dir") {
		t.Errorf("the system prompt is not the session directory's:\n%s", sys[1].Content)
	}
	h.r.opt.Environment.Wait() // its goroutine ends before the test
}

// GatherEnvironment gathers what DetectEnvironment does.
func TestGatherEnvironmentMatchesDetect(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("be brief"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := GatherEnvironment(context.Background(), dir).Wait()
	want := DetectEnvironment(context.Background(), dir, config.UserAgentsFile(getenv))
	got.Date, want.Date = time.Time{}, time.Time{}
	if got.Render() != want.Render() {
		t.Errorf("gathered\n%s\ndetected\n%s", got.Render(), want.Render())
	}
}
