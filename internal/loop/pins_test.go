package loop

import (
	"context"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestPinSurvivesFiveCompactions: a pinned fact is sent word for word in
// every request — right after the summary once there is one — through five
// compactions, and never goes into a summary request (it is not history to
// summarise). It has its own row in the calculator, which the running
// session and `agent context` agree on.
func TestPinSurvivesFiveCompactions(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	pin := "The staging database is db-7.internal; never touch prod-1.\n  Keep this indentation."
	if _, err := h.r.AddPin(ctx, "   "+pin+"\n", ""); err != nil {
		t.Fatal(err)
	}
	if s := h.r.Reading(); s.Breakdown.Pins <= 0 {
		t.Fatalf("pins row = %d, want > 0", s.Breakdown.Pins)
	}
	pinsAt := func(req int) int {
		msgs := h.request(req)
		for i, m := range msgs {
			if strings.Contains(m.Content, pin) {
				return i
			}
		}
		return -1
	}
	for round := range 5 {
		for _, q := range []string{"first", "second", "third"} {
			h.srv.Add(pt.Text(long(q, 3)))
			if res := h.turn(q); res.Err != nil {
				t.Fatal(res.Err)
			}
			n := len(h.srv.Requests()) - 1
			at := pinsAt(n)
			want := systemMessages(h.request(n)) // first after the system prompt
			if round > 0 {
				want++ // after the summary
			}
			if at != want {
				t.Fatalf("round %d, %s: the pin is message %d of the request, want %d", round, q, at, want)
			}
		}
		h.srv.Add(pt.Text(summaryText))
		if err := h.r.Compact(ctx, ""); err != nil {
			t.Fatalf("compaction %d: %v", round+1, err)
		}
		summaryReq := h.request(len(h.srv.Requests()) - 1)
		if !isSummaryRequest(summaryReq) || pinsAt(len(h.srv.Requests())-1) >= 0 {
			t.Fatalf("compaction %d: the summary request carries the pin (or is not one)", round+1)
		}
	}
	if n := len(h.compactions()); n != 5 {
		t.Fatalf("%d compactions, want 5", n)
	}
	h.srv.Add(pt.Text("done"))
	h.turn("last")
	msgs := h.request(len(h.srv.Requests()) - 1)
	sys := systemMessages(msgs)
	if !strings.HasPrefix(msgs[sys].Content, SummaryPreamble) || !strings.Contains(msgs[sys+1].Content, "<pinned>\n"+pin+"\n</pinned>") {
		t.Errorf("after 5 compactions the request goes on %.40q / %q", msgs[sys].Content, msgs[sys+1].Content)
	}
	live := h.r.Reading()
	read, _, err := StoredReading(ctx, h.store, h.cfg, h.r.opt.Tools, h.r.Session().ID)
	if err != nil || read.Breakdown.Pins != live.Breakdown.Pins || read.Total != live.Total {
		t.Errorf("read pins %d total %d, live pins %d total %d (%v)", read.Breakdown.Pins, read.Total, live.Breakdown.Pins, live.Total, err)
	}
}

// TestPinEditAndRemove: an edited pin is sent as edited, a removed one no
// more, and the pins row follows.
func TestPinEditAndRemove(t *testing.T) {
	h := newHarness(t, pt.Text("one"), pt.Text("two"))
	ctx := context.Background()
	p, err := h.r.AddPin(ctx, "use tabs", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.r.EditPin(ctx, p.ID, "use four spaces"); err != nil {
		t.Fatal(err)
	}
	h.turn("first")
	if c := h.request(0)[systemMessages(h.request(0))].Content; !strings.Contains(c, "use four spaces") || strings.Contains(c, "use tabs") {
		t.Errorf("pins message = %q", c)
	}
	if err := h.r.RemovePin(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if s := h.r.Reading(); s.Breakdown.Pins != 0 {
		t.Errorf("pins row after removing the only pin = %d", s.Breakdown.Pins)
	}
	h.turn("second")
	for _, m := range h.request(1) {
		if strings.Contains(m.Content, "four spaces") {
			t.Error("a removed pin was sent")
		}
	}
	if got := h.r.Pins(); len(got) != 0 {
		t.Errorf("pins = %+v", got)
	}
}

// systemMessages counts the system messages a request starts with.
func systemMessages(msgs []openai.ChatCompletionMessage) int {
	n := 0
	for n < len(msgs) && msgs[n].Role == openai.ChatMessageRoleSystem {
		n++
	}
	return n
}
