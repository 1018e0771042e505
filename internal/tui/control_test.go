package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/context/compact"
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
	h.waitScreen("pick a message, then what to summarise")
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
	if v := d.ed.value(); strings.Contains(v, compact.UserMessagesHeading) || strings.Contains(v, "<user_message>") {
		t.Errorf("the verbatim user messages are editable text:\n%s", v)
	}
	// It opens at the top, and so does the cursor: what is typed goes
	// where the eye is, not below the fold (issue 32 item 6).
	h.typeText("X")
	if v := d.ed.value(); !strings.HasPrefix(v, "X") {
		t.Errorf("typing in the opened summary editor went elsewhere than its top:\n%.200s", v)
	}
	d.ed.setValue("## Goal\nedited by hand")
	h.key("ctrl+s")
	h.waitScreen("summary edited")
	h.typeText("four")
	h.key("enter")
	h.waitFor("idle", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "fourth answer") })
	reqs := h.srv.Requests()
	var carried, pinned bool
	for _, m := range reqs[len(reqs)-1].Chat.Messages {
		carried = carried || strings.Contains(m.Content, "edited by hand") && strings.Contains(m.Content, "<user_message>\none\n</user_message>")
		pinned = pinned || strings.Contains(m.Content, "the port is 8443")
	}
	if !carried || !pinned {
		t.Errorf("the next request carries the edit %v, the pin %v", carried, pinned)
	}
}

// TestSummariseAfterChoice: /summarise, a picked message, then "what came
// after it": the next request carries the messages up to it verbatim,
// then the summary, and nothing of what came after; the first message
// offers no "before".
func TestSummariseAfterChoice(t *testing.T) {
	h := newHarness(t, []pt.Step{
		pt.Text("first answer"),
		pt.Text("second answer"),
		pt.Text("third answer " + strings.Repeat("word ", 200)),
		pt.Text("## Goal\nsummary of the tangent"),
		pt.Text("fourth answer"),
	})
	for _, s := range []string{"one", "two", "three"} {
		h.typeText(s)
		h.key("enter")
		h.waitFor("idle", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "▌ "+s) })
	}
	h.typeText("/summarise")
	h.key("enter")
	h.waitScreen("pick a message, then what to summarise")
	h.typeText("one")
	h.key("enter")
	h.waitScreen("around the chosen message")
	if s := h.screen(); strings.Contains(s, "what came before it") || !strings.Contains(s, "what came after it") {
		t.Errorf("the first message's choices:\n%s", s)
	}
	h.key("esc")

	h.typeText("/summarise")
	h.key("enter")
	h.waitScreen("pick a message, then what to summarise")
	h.typeText("two")
	h.key("enter")
	h.waitScreen("Summarise what came before it")
	h.typeText("came after")
	h.key("enter")
	h.waitFor("the compaction to end", func(m *Model) bool { return strings.Contains(screenOf(m), "context compacted") && !m.compacting })
	h.typeText("four")
	h.key("enter")
	h.waitFor("idle", func(m *Model) bool { return idle(m) && strings.Contains(screenOf(m), "fourth answer") })
	reqs := h.srv.Requests()
	var sent []string
	for _, m := range reqs[len(reqs)-1].Chat.Messages {
		switch {
		case m.Role == "system":
		case strings.Contains(m.Content, "summary of the tangent"):
			sent = append(sent, "summary")
		default:
			sent = append(sent, m.Content)
		}
	}
	if got, want := strings.Join(sent, " | "), "one | first answer | two | summary | four"; got != want {
		t.Errorf("sent = %q, want %q", got, want)
	}
}

// TestSummaryEditKeepsALongSummaryWhole: a summary long enough for the
// editor to show it as a paste placeholder is saved as its text, never
// as the placeholder ("[paste #1 · …]" stored in place of the summary):
// saved untouched it is unchanged, and an edit keeps the rest of it.
func TestSummaryEditKeepsALongSummaryWhole(t *testing.T) {
	t.Setenv("EDITOR", "")
	var long strings.Builder
	long.WriteString("## Goal\n")
	for i := range collapseLines + 50 {
		fmt.Fprintf(&long, "f%d\n", i)
	}
	last := fmt.Sprintf("f%d\n", collapseLines+49)
	h := newHarness(t, []pt.Step{
		pt.Text("first answer " + strings.Repeat("word ", 3000)),
		pt.Text("second answer " + strings.Repeat("more ", 3000)),
		pt.Text("third answer"),
		pt.Text(long.String()),
	})
	for i, s := range []string{"one", "two", "three"} {
		h.typeText(s)
		h.key("enter")
		h.waitFor("idle", func(m *Model) bool { return idle(m) && len(h.srv.Requests()) == i+1 })
	}
	h.typeText("/compact")
	h.key("enter")
	h.waitFor("the compaction to end", func(m *Model) bool { return strings.Contains(screenOf(m), "context compacted") && !m.compacting })
	h.typeText("/summary edit")
	h.key("enter")
	h.waitScreen("ctrl+s save")
	h.key("ctrl+s")
	h.waitFor("the save", func(m *Model) bool {
		s := screenOf(m)
		return strings.Contains(s, "summary unchanged") || strings.Contains(s, "summary edited")
	})
	text, _, err := h.m.runner.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, last) || strings.Contains(text, "[paste #") {
		t.Fatalf("the summary saved untouched lost its text:\n%.300s", text)
	}
	if !strings.Contains(h.screen(), "summary unchanged") {
		t.Errorf("a summary saved untouched was not unchanged:\n%s", h.screen())
	}
}
