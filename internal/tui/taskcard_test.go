package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/message"
)

// TestTaskCard: the task card is titled with the description while it
// runs and shows the subagent's progress; done, it collapses to one line
// of steps, tokens, cost and session (from stored metadata, numbers as
// float64), and expanded it shows the answer.
func TestTaskCard(t *testing.T) {
	rc := &renderCtx{width: 100, th: newTheme(true)}
	render := func(it *toolItem) string {
		it.ver++
		return ansi.Strip(strings.Join(it.lines(rc), "\n"))
	}
	it := &toolItem{title: "task", state: message.ToolState{
		Name: "task", Status: message.ToolRunning, Input: `{"description":"find  the needle","prompt":"..."}`,
		Progress: "read hay.go\ngrep needle\nstep 2 · 12.4K tokens",
	}}
	running := render(it)
	for _, want := range []string{"task find the needle", "running", "grep needle", "step 2 · 12.4K tokens"} {
		if !strings.Contains(running, want) {
			t.Errorf("running card lacks %q:\n%s", want, running)
		}
	}

	start := time.Now()
	it.set(message.ToolState{
		Name: "task", Status: message.ToolCompleted, Title: "task: find the needle",
		Input:     `{"description":"find the needle","prompt":"..."}`,
		Output:    "The needle is 42.\nIt is in hay.go, line 3.\n\n[subagent session 01JTASK: 3 steps, 12400 tokens]",
		Metadata:  map[string]any{"steps": float64(3), "tokens": float64(12400), "cost_usd": 0.0312, "session_id": "01JTASK"},
		StartedAt: start, EndedAt: start.Add(2 * time.Second),
	}, "")
	done := render(it)
	if !strings.Contains(done, "3 steps · 12.4K tokens · $0.031 · session 01JTASK") {
		t.Errorf("done card lacks the summary:\n%s", done)
	}
	if strings.Contains(done, "The needle is 42") {
		t.Errorf("collapsed card shows the answer:\n%s", done)
	}
	if !strings.Contains(done, "more lines") {
		t.Errorf("collapsed card does not say it expands:\n%s", done)
	}
	it.toggle()
	expanded := render(it)
	if !strings.Contains(expanded, "The needle is 42.") || !strings.Contains(expanded, "line 3") {
		t.Errorf("expanded card lacks the answer:\n%s", expanded)
	}
}
