package tui

import (
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestStatusLineMarksSuspectUsage: a provider reporting far more input
// than the request carries is not believed; the status line shows our
// count (estimated, "~") and what the provider said, marked (issue 27
// item 4: "951/16K 5%" for a request of ~9,500 tokens).
func TestStatusLineMarksSuspectUsage(t *testing.T) {
	h := newHarness(t, []pt.Step{pt.Reply(pt.TextChunk("short"), pt.FinishChunk("stop"),
		pt.UsageChunk(pt.Usage{Prompt: 90000, Completion: 10}))})
	h.typeText("hi")
	h.key("enter")
	h.waitFor("idle", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 1 })
	s := h.m.snap
	if !s.UsageSuspect || s.Total >= 90000 {
		t.Fatalf("snapshot: suspect %v total %d", s.UsageSuspect, s.Total)
	}
	label := contextLabel(h.m.th, h.m.snap)
	if !strings.Contains(label, "~") || !strings.Contains(label, "provider said 90K?") {
		t.Errorf("status line context %q: want our estimate and the provider's figure marked", label)
	}
	if screen := h.screen(); !strings.Contains(screen, "provider said 90K?") {
		t.Errorf("screen:\n%s", screen)
	}
	// /context shows both figures in its warning.
	h.typeText("/context")
	h.key("enter")
	h.waitScreen("report ignored")
}
