package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/plan"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestPlanModeTurn: a turn in plan mode is told so, offers no write, runs
// no write the model calls anyway (the turn goes on after the refusal),
// and stores its final answer as a plan part, which an edit replaces and
// which, approved, is the next message of a turn in the default mode.
func TestPlanModeTurn(t *testing.T) {
	mode := plan.New(true, nil)
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.Mode = mode },
		pt.ToolCalls(pt.Call{ID: "w", Name: "write", Args: `{"path":"x.txt","content":"x"}`}),
		pt.Text("1. Do A.\n2. Do B."),
		pt.Text("Done."),
	)
	if res := h.turn("make a plan"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "x.txt")); !os.IsNotExist(err) {
		t.Fatalf("write ran in plan mode: %v", err)
	}
	first := h.request(0)
	if got := first[len(first)-1].Content; !strings.HasPrefix(got, PlanNote) || !strings.HasSuffix(got, "make a plan") {
		t.Errorf("the plan-mode message: %q", got)
	}
	for _, tool := range h.srv.Requests()[0].Chat.Tools {
		if n := tool.Function.Name; n == "write" || n == "edit" {
			t.Errorf("plan mode offers %s", n)
		}
	}
	second := h.request(1)
	if got := second[len(second)-1].Content; !strings.Contains(got, "Refused: plan mode is on, so write did not run") {
		t.Errorf("the refused write's result: %q", got)
	}
	p, ok := LatestPlan(h.r.History())
	if !ok || p.Text != "1. Do A.\n2. Do B." || p.Type != message.PartPlan {
		t.Fatalf("the plan part: %+v %v", p, ok)
	}
	if _, err := SavePlanEdit(context.Background(), h.store, p, "  "); err == nil {
		t.Errorf("an empty edit was accepted")
	}
	edited, err := SavePlanEdit(context.Background(), h.store, p, "1. Do A only.")
	if err != nil {
		t.Fatal(err)
	}
	stored, err := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	if sp, ok := LatestPlan(stored); !ok || sp.Text != "1. Do A only." || sp.ID != p.ID {
		t.Errorf("the stored plan after the edit: %+v", sp)
	}

	mode.Set(false) // approve and run
	if res := h.turn(ExecuteMessage(edited.Text)); res.Err != nil {
		t.Fatal(res.Err)
	}
	third := h.request(2)
	if got := third[len(third)-1].Content; strings.Contains(got, PlanNote) || !strings.Contains(got, "1. Do A only.") {
		t.Errorf("the approving message: %q", got)
	}
	for _, m := range third {
		if strings.Contains(m.Content, "1. Do A.\n2. Do B.") && m.Role != "assistant" {
			t.Errorf("the plan part was sent to the model as %s", m.Role)
		}
	}
	found := false
	for _, tool := range h.srv.Requests()[2].Chat.Tools {
		found = found || tool.Function.Name == "write"
	}
	if !found {
		t.Errorf("write is not offered after plan mode was left")
	}
}

// TestTitleSkipsThePlanNote: a session started in plan mode is titled by
// the user's words, not by the note plan mode puts before them.
func TestTitleSkipsThePlanNote(t *testing.T) {
	m := plan.New(true, nil)
	if got := TitleFrom(planNote(m, "make the parser faster")); got != "make the parser faster" {
		t.Errorf("title = %q", got)
	}
}
