package tui

import (
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestControlPreviewPinAndSummaryEdit: /compact --preview shows the plan
// and sends nothing; /pin adds a pins row to /context; /summary edit
// (without $EDITOR) edits in a panel and the next request carries it;
// /summarise offers the user messages since the summary.
func TestControlPreviewPinAndSummaryEdit(t *testing.T) {
	t.Setenv("EDITOR", "")
	h := newHarness(t, []pt.Step{
		pt.Text("first answer " + strings.Repeat("word ", 200)),
		pt.Text("second answer " + strings.Repeat("more ", 200)),
		pt.Text("third answer"),
		pt.Text("## Goal\nsummary of it all"),
		pt.Text("fourth answer"),
	})
	for _, s := range []string{"one", "two", "three"} {
		h.typeText(s)
		h.key("enter")
		h.waitFor("idle", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "▌ "+s) })
	}
	n := len(h.srv.Requests())
	h.typeText("/compact --preview")
	h.key("enter")
	h.waitScreen("Compaction preview")
	for _, want := range []string{"Summarise", "Keep verbatim", "Estimated total after"} {
		if !strings.Contains(h.screen(), want) {
			t.Errorf("preview lacks %q:\n%s", want, h.screen())
		}
	}
	if len(h.srv.Requests()) != n {
		t.Fatal("the preview sent a request")
	}
	h.key("esc")

	h.typeText("/pin the port is 8443")
	h.key("enter")
	h.waitScreen("pinned: the port is 8443")
	h.typeText("/context")
	h.key("enter")
	h.waitFor("the pins row", func(m *Model) bool { return strings.Contains(screenOf(m), "■ pins") })
	h.key("esc")

	h.typeText("/summarise")
	h.key("enter")
	h.waitScreen("Summarise up to here")
	if s := h.screen(); !strings.Contains(s, "two") || !strings.Contains(s, "three") {
		t.Errorf("the picker lacks the user messages:\n%s", s)
	}
	h.key("esc")

	h.typeText("/compact")
	h.key("enter")
	h.waitFor("the compaction to end", func(m *Model) bool { return strings.Contains(screenOf(m), "context compacted") && !m.compacting })
	h.typeText("/summary edit")
	h.key("enter")
	h.waitScreen("ctrl+s save")
	d, ok := h.m.drawer.(*summaryEditDrawer)
	if !ok {
		t.Fatalf("drawer = %T", h.m.drawer)
	}
	d.editing.setValue("## Goal\nedited by hand")
	h.key("ctrl+s")
	h.waitScreen("summary edited")
	h.typeText("four")
	h.key("enter")
	h.waitFor("idle", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "fourth answer") })
	reqs := h.srv.Requests()
	var carried, pinned bool
	for _, m := range reqs[len(reqs)-1].Chat.Messages {
		carried = carried || strings.Contains(m.Content, "edited by hand")
		pinned = pinned || strings.Contains(m.Content, "the port is 8443")
	}
	if !carried || !pinned {
		t.Errorf("the next request carries the edit %v, the pin %v", carried, pinned)
	}
}
