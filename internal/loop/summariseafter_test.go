package loop

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// sentContents returns the contents of a request's messages after the
// system prompt, tool results as "tool:ID", a summary as "summary".
func sentContents(msgs []openai.ChatCompletionMessage) []string {
	var out []string
	for _, m := range msgs[systemMessages(msgs):] {
		switch {
		case m.Role == openai.ChatMessageRoleTool:
			out = append(out, "tool:"+m.ToolCallID)
		case strings.HasPrefix(m.Content, SummaryPreamble):
			out = append(out, "summary")
		case len(m.ToolCalls) > 0:
			out = append(out, "call:"+m.ToolCalls[0].ID)
		default:
			out = append(out, m.Content)
		}
	}
	return out
}

// TestCompactAfter: "summarise after here" keeps what was sent up to the
// chosen message (an assistant message with a tool call: its result stays
// with it) verbatim before the summary, the pins right after the summary,
// then the newer messages; the calculator agrees with a reopened session;
// a later automatic compaction summarises the head and keeps every call
// with its result.
func TestCompactAfter(t *testing.T) {
	h := newHarnessWith(t, unknownModel,
		pt.ToolCall("c1", "bash", `{"command":"echo one"}`), pt.Text("one"),
		pt.ToolCall("c2", "bash", `{"command":"echo two"}`), pt.Text("two"),
		pt.Text(long("three", 3)), pt.Text(long("four", 3)))
	ctx := context.Background()
	for _, q := range []string{"first", "second", "third", "fourth"} {
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	hist, _ := h.store.LoadHistory(ctx, h.r.Session().ID)
	var keepTo, last string
	for _, e := range hist {
		for _, p := range e.Parts {
			if p.Type == message.PartTool && p.Tool != nil && p.Tool.CallID == "c2" {
				keepTo = e.Message.ID
			}
		}
		last = e.Message.ID
	}
	if _, err := h.r.AddPin(ctx, "the port is 8443", ""); err != nil {
		t.Fatal(err)
	}
	if err := h.r.CompactAfter(ctx, last, ""); !errors.Is(err, ErrNothingToCompact) {
		t.Errorf("after the last message: %v, want nothing to compact", err)
	}

	h.srv.Add(pt.Text(summaryText))
	if err := h.r.CompactAfter(ctx, keepTo, ""); err != nil {
		t.Fatal(err)
	}
	summaryReq := h.request(len(h.srv.Requests()) - 1)
	if s := summaryReq[len(summaryReq)-1].Content; !strings.Contains(s, "four and more") || strings.Contains(s, "echo one") {
		t.Errorf("the summary request does not cover just what came after the message:\n%s", s)
	}
	ev := h.eventsOf(message.EventCompacted)
	if len(ev) != 1 || ev[0].Compaction.HeadUpTo != keepTo || ev[0].Compaction.TailFrom != "" {
		t.Fatalf("compacted events = %d, last %+v", len(ev), ev[len(ev)-1].Compaction)
	}
	live := h.r.Reading()
	read, _, err := StoredReading(ctx, h.store, h.cfg, h.r.opt.Tools, h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	if read.Total != live.Total {
		t.Errorf("after summarise-after: read %d (%s), live %d (%s)", read.Total, read.Basis, live.Total, live.Basis)
	}

	// The next request: the head verbatim, the summary, the pins, the rest.
	h.srv.Add(textWithUsage("five", big))
	if res := h.turn("fifth"); res.Err != nil {
		t.Fatal(res.Err)
	}
	req := h.request(len(h.srv.Requests()) - 1)
	assertAnswered(t, req)
	want := []string{"first", "call:c1", "tool:c1", "one", "second", "call:c2", "tool:c2", "summary", PinsText(h.r.Pins()), "fifth"}
	if got := sentContents(req); !slices.Equal(got, want) {
		t.Errorf("sent after summarise-after:\n got %q\nwant %q", got, want)
	}
	live = h.r.Reading()
	read, _, err = StoredReading(ctx, h.store, h.cfg, h.r.opt.Tools, h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	if read.Total != live.Total {
		t.Errorf("after a turn: read %d (%s), live %d (%s)", read.Total, read.Basis, live.Total, live.Basis)
	}

	// "five" reported a request over the point: the next turn compacts
	// first, and the head is summarised like any old message.
	h.srv.Add(pt.Text(summaryText), pt.Text("six"))
	if res := h.turn("sixth"); res.Err != nil {
		t.Fatal(res.Err)
	}
	n := len(h.srv.Requests())
	if s := h.request(n - 2); !isSummaryRequest(s) || !strings.Contains(s[len(s)-1].Content, "echo two") {
		t.Fatalf("request %d is not a summary of the head: %+v", n-2, s)
	}
	main := h.request(n - 1)
	assertAnswered(t, main)
	want = []string{"summary", PinsText(h.r.Pins()), "fifth", "five", "sixth"}
	if got := sentContents(main); !slices.Equal(got, want) {
		t.Errorf("sent after the automatic compaction:\n got %q\nwant %q", got, want)
	}
}
