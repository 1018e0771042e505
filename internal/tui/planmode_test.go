package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// requestOffers reports whether the n-th request offered the tool name.
func requestOffers(h *harness, n int, name string) bool {
	for _, tool := range h.srv.Requests()[n].Chat.Tools {
		if tool.Function.Name == name {
			return true
		}
	}
	return false
}

// TestPlanModeToggleAndApprove: Shift+Tab switches plan mode on and off
// (the status line says so); a turn in plan mode offers no write; its plan
// opens in the panel, where enter approves it: plan mode goes off and the
// next request carries the plan, with write offered again.
func TestPlanModeToggleAndApprove(t *testing.T) {
	const planText = "1. Read main.go.\n2. Rename run to start."
	h := newHarness(t, []pt.Step{pt.Text(planText), pt.Text("Renamed.")})
	h.key("shift+tab")
	if line := ansi.Strip(h.m.statusLine()); !strings.Contains(line, "plan mode") {
		t.Fatalf("status line %q lacks plan mode", line)
	}
	h.key("shift+tab")
	if line := ansi.Strip(h.m.statusLine()); strings.Contains(line, "plan mode") || h.m.opt.Loop.Mode.On() {
		t.Fatalf("shift+tab did not leave plan mode: %q", line)
	}
	h.typeText("/plan")
	h.key("enter")
	if !h.m.opt.Loop.Mode.On() {
		t.Fatal("/plan did not switch plan mode on")
	}
	h.typeText("rename run")
	h.key("enter")
	h.waitFor("the plan panel", func(m *Model) bool { _, ok := m.drawer.(*planPanel); return ok && idle(m) })
	if requestOffers(h, 0, "write") || requestOffers(h, 0, "edit") || !requestOffers(h, 0, "read") {
		t.Errorf("plan mode's request offers the wrong tools")
	}
	h.waitScreen("enter approve and run")
	h.key("enter")
	h.waitFor("the approved plan's turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	if h.m.opt.Loop.Mode.On() || strings.Contains(ansi.Strip(h.m.statusLine()), "plan mode") {
		t.Errorf("approving did not leave plan mode")
	}
	msgs := h.srv.Requests()[1].Chat.Messages
	if got := msgs[len(msgs)-1].Content; !strings.Contains(got, planText) || !strings.Contains(got, "approved") {
		t.Errorf("the approving message: %q", got)
	}
	if !requestOffers(h, 1, "write") {
		t.Errorf("write is not offered after the plan was approved")
	}
}

// TestPlanEditInPanel: /plan edit without $EDITOR edits the latest plan in
// the panel; ctrl+s saves it and /plan run sends the edited text.
func TestPlanEditInPanel(t *testing.T) {
	t.Setenv("EDITOR", "")
	h := newHarness(t, []pt.Step{pt.Text("1. Old step."), pt.Text("ok")})
	h.key("shift+tab")
	h.typeText("plan it")
	h.key("enter")
	h.waitFor("the plan panel", func(m *Model) bool { _, ok := m.drawer.(*planPanel); return ok && idle(m) })
	h.key("esc") // keep planning
	h.typeText("/plan edit")
	h.key("enter")
	h.waitFor("the plan editor", func(m *Model) bool { _, ok := m.drawer.(*planEditDrawer); return ok })
	d := h.m.drawer.(*planEditDrawer)
	d.ed.setValue("1. New step.")
	h.send(keyPress("ctrl+s"))
	h.waitScreen("plan saved")
	h.waitFor("the panel on the saved plan", func(m *Model) bool {
		p, ok := m.drawer.(*planPanel)
		return ok && p.part.Text == "1. New step."
	})
	h.key("esc")
	h.typeText("/plan run")
	h.key("enter")
	h.waitFor("the approved plan's turn", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == 2 })
	msgs := h.srv.Requests()[1].Chat.Messages
	if got := msgs[len(msgs)-1].Content; !strings.Contains(got, "1. New step.") || strings.Contains(got, "Old step") {
		t.Errorf("the approving message: %q", got)
	}
}
