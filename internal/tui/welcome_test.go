package tui

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestWelcomeScreenShowsWhereAndWhatUntilTheFirstMessage (issue 14.5).
func TestWelcomeScreenShowsWhereAndWhatUntilTheFirstMessage(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	h := newHarness(t, []pt.Step{pt.Text("hello back")}, func(o *Options) {
		if out, err := exec.Command("git", "init", "-q", "-b", "feature/welcome", o.Loop.Dir).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v: %s", err, out)
		}
		o.Version = "v9.9.9"
	})
	h.waitScreen("feature/welcome")
	s := h.screen()
	for _, want := range []string{"agent v9.9.9", h.dir, "gpt-4.1", "context window", h.srv.URL, "/context", "/compact", "queue"} {
		if !strings.Contains(s, want) {
			t.Errorf("welcome lacks %q:\n%s", want, s)
		}
	}
	if regexp.MustCompile(`\[[0-9;]*m`).MatchString(s) {
		t.Errorf("welcome shows a style sequence as text:\n%s", s)
	}
	h.typeText("hi")
	h.key("enter")
	h.waitScreen("hello back")
	if strings.Contains(h.screen(), "feature/welcome") {
		t.Errorf("the welcome screen stayed after the first message:\n%s", h.screen())
	}
}
