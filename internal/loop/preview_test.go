package loop

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestPreviewIsWhatCompactionDoes: the preview sends no request and writes
// nothing; the compaction that follows prunes the parts it named,
// summarises the range it named, keeps the tail and the user messages it
// named, and lands between its two estimates of the total after.
func TestPreviewIsWhatCompactionDoes(t *testing.T) {
	bigOut := `{"command":"head -c 60000 /dev/zero | tr '\\0' x"}`
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Tools.BashMaxOutputChars = 200000
		c.Compaction.PruneProtect, c.Compaction.PruneMinimum = 4000, 2000
		// No prune after the turns: the compaction's own pass has work.
		c.Compaction.Prune = false
	},
		pt.ToolCall("c1", "bash", bigOut), pt.Text(long("one", 4)),
		pt.ToolCall("c2", "bash", bigOut), pt.Text(long("two", 4)),
		pt.Text(long("three", 4)), pt.Text(long("four", 4)),
	)
	ctx := context.Background()
	for _, q := range []string{"always run go vet", "second", "third", "fourth"} {
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	if _, err := h.r.AddPin(ctx, "the port is 8443", ""); err != nil {
		t.Fatal(err)
	}
	h.cfg.Compaction.Prune = true
	requests := len(h.srv.Requests())
	stored, _ := h.store.LoadHistory(ctx, h.r.Session().ID)
	p, err := h.r.Preview()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(h.srv.Requests()); n != requests {
		t.Fatalf("the preview sent %d requests", n-requests)
	}
	if again, _ := h.store.LoadHistory(ctx, h.r.Session().ID); len(again) != len(stored) || findTool(again, "c1").CompactedAt != findTool(stored, "c1").CompactedAt {
		t.Fatal("the preview wrote to the history")
	}
	if p.Nothing || p.SummariseMessages == 0 || p.TailMessages == 0 || p.Pins != 1 || p.PinsTokens == 0 ||
		p.SummaryMaxTokens == 0 || !(p.AfterMin < p.After && p.After < p.Total) {
		t.Fatalf("preview = %+v", p)
	}
	if !slices.Contains(p.UserMessages, "always run go vet") {
		t.Errorf("user messages kept = %q", p.UserMessages)
	}

	h.srv.Add(pt.Text(summaryText))
	if err := h.r.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	pruned := h.eventsOf(message.EventPruned)
	var prunedParts int
	for _, ev := range pruned {
		prunedParts += ev.Prune.Parts
	}
	if p.PruneParts == 0 || prunedParts != p.PruneParts {
		t.Errorf("preview prunes %d parts, the compaction pruned %d", p.PruneParts, prunedParts)
	}
	compacting := h.eventsOf(message.EventCompacting)
	if len(compacting) != 1 || compacting[0].Summarising != p.SummariseMessages || compacting[0].Compaction.TailFrom != p.TailFrom {
		t.Fatalf("compaction summarised %d from tail %s; the preview said %d from %s",
			compacting[0].Summarising, compacting[0].Compaction.TailFrom, p.SummariseMessages, p.TailFrom)
	}
	done := h.compactions()
	if len(done) != 1 {
		t.Fatalf("%d compactions", len(done))
	}
	after := done[0].TokensAfter
	if after < p.AfterMin || after > p.After {
		t.Errorf("the compaction left %d tokens; the preview said between %d and %d", after, p.AfterMin, p.After)
	}
	hist, _ := h.store.LoadHistory(ctx, h.r.Session().ID)
	for _, e := range hist {
		if e.Message.Summary {
			if _, users := compact.SplitSummary(joinText(e.Parts, message.PartText)); !slices.Equal(users, p.UserMessages) {
				t.Errorf("summary keeps %q, the preview said %q", users, p.UserMessages)
			}
		}
	}
	t.Logf("preview: total %d, prune %d parts (%d), summarise %d msgs (%d), tail %d (%d), after %d..%d; real after %d",
		p.Total, p.PruneParts, p.PruneTokens, p.SummariseMessages, p.SummariseTokens, p.TailMessages, p.TailTokens, p.AfterMin, p.After, after)
}

// TestCompactUpTo: "summarise up to here" summarises what came before the
// chosen message and keeps it and everything after it verbatim, even past
// the tail budget; a message already summarised is refused.
func TestCompactUpTo(t *testing.T) {
	h := newHarness(t, pt.Text(long("one", 3)), pt.Text(long("two", 3)), pt.Text(long("three", 3)), pt.Text(long("four", 3)))
	ctx := context.Background()
	for _, q := range []string{"first", "second", "third", "fourth"} {
		h.turn(q)
	}
	hist, _ := h.store.LoadHistory(ctx, h.r.Session().ID)
	var second, first string
	for _, e := range hist {
		if e.Message.Role == message.RoleUser && joinText(e.Parts, message.PartText) == "second" {
			second = e.Message.ID
		}
		if e.Message.Role == message.RoleUser && joinText(e.Parts, message.PartText) == "first" {
			first = e.Message.ID
		}
	}
	h.srv.Add(pt.Text(summaryText))
	if err := h.r.CompactUpTo(ctx, second, ""); err != nil {
		t.Fatal(err)
	}
	ev := h.eventsOf(message.EventCompacting)
	if len(ev) != 1 || ev[0].Summarising != 2 || ev[0].Compaction.TailFrom != second {
		t.Fatalf("compacting = %d messages from %s, want 2 from %s", ev[0].Summarising, ev[0].Compaction.TailFrom, second)
	}
	h.srv.Add(pt.Text("five"))
	h.turn("fifth")
	req := h.request(len(h.srv.Requests()) - 1)
	var sent []string
	for _, m := range req[systemMessages(req)+1:] {
		if m.Role == "user" {
			sent = append(sent, m.Content)
		}
	}
	if !slices.Equal(sent, []string{"second", "third", "fourth", "fifth"}) {
		t.Errorf("user messages sent after the summary = %q", sent)
	}
	if err := h.r.CompactUpTo(ctx, first, ""); !errors.Is(err, compact.ErrNotInRange) {
		t.Errorf("up to a summarised message: %v", err)
	}
}
