package loop

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestPrefetchedEnvironmentIsUsedByTheNextTurn: the environment gathered
// while the user typed (PrefetchEnvironment) is the one the next turn
// sends, so git does not run between Enter and the request; the turn after
// gathers it again. (The repository is made after Open: the status is told
// in the turn's message, the system message keeping the session's start.)
func TestPrefetchedEnvironmentIsUsedByTheNextTurn(t *testing.T) {
	h := newHarness(t, pt.Text("one"), pt.Text("two"))
	if out, err := exec.Command("git", "-C", h.dir, "init", "-q").CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "typed-file.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.r.PrefetchEnvironment()
	h.r.state.mu.Lock()
	p := h.r.state.pendingEnv
	h.r.state.mu.Unlock()
	if p == nil {
		t.Fatal("PrefetchEnvironment started nothing")
	}
	p.Wait()
	if err := os.WriteFile(filepath.Join(h.dir, "late-file.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := h.turn("first"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if sys := toldText(h, 0); strings.Contains(sys, "late-file.txt") || !strings.Contains(sys, "typed-file.txt") {
		t.Fatalf("the first turn did not send the prefetched environment (typed-file.txt, not late-file.txt):\n%s", sys)
	}
	if res := h.turn("second"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if sys := toldText(h, 1); !strings.Contains(sys, "late-file.txt") {
		t.Fatalf("the second turn did not gather the environment again:\n%s", sys)
	}
}

// toldText is what request n tells the model of the environment: its
// system messages and its last message (the turn's, with the git status
// when it changed: envcontext.go).
func toldText(h *harness, n int) string {
	var b strings.Builder
	msgs := h.request(n)
	for _, m := range msgs {
		if m.Role == "system" {
			b.WriteString(m.Content)
		}
	}
	b.WriteString(msgs[len(msgs)-1].Content)
	return b.String()
}
