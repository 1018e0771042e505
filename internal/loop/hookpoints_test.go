package loop

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/hooks"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// hookRig is a hookPoints with these hooks and recording deps; no Runner.
type hookRig struct {
	h         *hookPoints
	events    []message.Event
	notes     []string
	synthetic []string
	history   []message.Entry
}

func newHookRig(t *testing.T, hs ...hooks.Hook) *hookRig {
	t.Helper()
	hr, warnings := hooks.New(hs, hooks.Options{})
	if len(warnings) > 0 {
		t.Fatalf("hook warnings: %v", warnings)
	}
	rig := &hookRig{}
	rig.h = newHookPoints(hookDeps{
		hooks: hr, dir: t.TempDir(),
		session: func() string { return "s1" },
		emit:    func(ev message.Event) { rig.events = append(rig.events, ev) },
		note:    func(s string) { rig.notes = append(rig.notes, s) },
		addSynthetic: func(_ context.Context, text string) error {
			rig.synthetic = append(rig.synthetic, text)
			return nil
		},
		history:  func() []message.Entry { return rig.history },
		maxSteps: 100,
	})
	return rig
}

func textEntry(role message.Role, text string, summary bool) message.Entry {
	return message.Entry{Message: message.Message{Role: role, Summary: summary},
		Parts: []message.Part{{Type: message.PartText, Text: text}}}
}

func TestHookPointsStopHookContinuesATurnWithoutARunner(t *testing.T) {
	rig := newHookRig(t, hooks.Hook{Event: hooks.Stop, Command: `echo '{"decision":"block","reason":"again"}'`})
	rig.history = []message.Entry{textEntry(message.RoleAssistant, "done, I think", false)}
	var before []int
	rig.h.d.turn = func(context.Context) TurnResult {
		before = append(before, rig.h.stepsBefore)
		return TurnResult{FinishReason: "stop", Steps: 2}
	}
	res := rig.h.turnWithStop(context.Background())
	if want := 1 + maxStopContinuations; len(before) != want || res.Steps != 2*want {
		t.Fatalf("turns %d, steps %d; want %d turns of 2 steps", len(before), res.Steps, want)
	}
	if before[0] != 0 || before[1] != 2 || before[len(before)-1] != 2*maxStopContinuations {
		t.Errorf("steps before each turn = %v; want 0, 2, 4, …", before)
	}
	if rig.h.stepsBefore != 0 {
		t.Errorf("stepsBefore = %d after the turn; want 0", rig.h.stepsBefore)
	}
	if len(rig.synthetic) != maxStopContinuations || rig.synthetic[0] != "Stop hook feedback:\nagain" {
		t.Errorf("feedback messages = %q", rig.synthetic)
	}
	if len(rig.notes) != 1 || !strings.Contains(rig.notes[0], "kept the turn going 3 times") {
		t.Errorf("notes = %q", rig.notes)
	}
	var runs int
	for _, ev := range rig.events {
		if ev.Type == message.EventHook && ev.SessionID == "s1" && ev.Hook.Event == hooks.Stop {
			runs++
		}
	}
	if runs != 1+maxStopContinuations {
		t.Errorf("%d Stop hook events for session s1; want %d", runs, 1+maxStopContinuations)
	}
}

func TestHookPointsSessionStartContextJoinsTheSystemPrompt(t *testing.T) {
	rig := newHookRig(t, hooks.Hook{Event: hooks.SessionStart, Command: `echo "branch main is frozen"`})
	sys := []string{"stable", "env"}
	got := rig.h.sessionStart(context.Background(), true, "m", sys)
	want := "Context from the user's SessionStart hooks:\nbranch main is frozen"
	if len(got) != 3 || got[2] != want {
		t.Fatalf("system = %q; want the hooks' context third", got)
	}
	if len(sys) != 2 {
		t.Errorf("the caller's system was changed: %q", sys)
	}
	// A system prompt gathered later (a refresh) gets it too.
	if again := rig.h.withContext([]string{"stable", "env2"}); len(again) != 3 || again[2] != want {
		t.Errorf("withContext = %q", again)
	}
	if none := newHookRig(t).h; len(none.sessionStart(context.Background(), false, "m", sys)) != 2 || len(none.withContext(sys)) != 2 {
		t.Error("without hooks the system prompt changed")
	}
}

func TestHookPointsToolHooksStopTheTurnOnce(t *testing.T) {
	rig := newHookRig(t,
		hooks.Hook{Event: hooks.PostToolUse, Command: `echo '{"continue":false,"stopReason":"the build broke","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"see build.log"}}'`},
		hooks.Hook{Event: hooks.PostCompact, Command: `cat > /dev/null`})
	call := tools.Call{ID: "c1", Name: "bash", Input: []byte(`{"command":"make"}`)}
	res := rig.h.postTool(context.Background(), call, tools.Result{Output: "ok\n"})
	if res.Output != "ok\n\nPostToolUse hook context:\nsee build.log" {
		t.Errorf("result = %q", res.Output)
	}
	if !rig.h.takeStopTurn() || rig.h.takeStopTurn() {
		t.Error("takeStopTurn: want true once, then false")
	}
	if len(rig.notes) != 1 || rig.notes[0] != "PostToolUse hook: the build broke" {
		t.Errorf("notes = %q", rig.notes)
	}
	// PostCompact is told the newest summary of the history it is given.
	rig.history = []message.Entry{textEntry(message.RoleUser, "old", true), textEntry(message.RoleUser, "new summary", true),
		textEntry(message.RoleAssistant, "answer", false)}
	if got := latestSummary(rig.history); got != "new summary" {
		t.Errorf("latestSummary = %q", got)
	}
	if got := lastAssistantText(rig.history); got != "answer" {
		t.Errorf("lastAssistantText = %q", got)
	}
	n := len(rig.events)
	rig.h.postCompact(context.Background(), compactRequest{}, nil)
	if len(rig.events) != n+1 || rig.events[n].Hook.Event != hooks.PostCompact {
		t.Errorf("PostCompact events: %+v", rig.events[n:])
	}
}
