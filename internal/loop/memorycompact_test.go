package loop

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/storage"
)

// TestMemoryOutlivesCompaction: the memory section (the count and the
// pinned memory) is in the system part, so the request after a
// compaction carries it byte for byte; a memory_search result the
// compaction summarised away is gone from the history, and searching
// again returns it.
func TestMemoryOutlivesCompaction(t *testing.T) {
	ctx := context.Background()
	search := pt.ToolCall("m1", "memory_search", `{"query":"deploys"}`)
	h := newHarnessWith(t, func(o *Options, _ *config.Config) {
		for _, m := range []storage.Memory{
			{Scope: o.Dir, Text: "The tests run with make check", Pinned: true},
			{Scope: o.Dir, Text: "Deploys go through make ship on Fridays"},
		} {
			if err := o.Store.Memories().Add(ctx, &m); err != nil {
				t.Fatal(err)
			}
		}
	}, search, pt.Text(long("one", 5)), pt.Text(long("two", 5)), pt.Text("three"), pt.Text(summaryText),
		pt.ToolCall("m2", "memory_search", `{"query":"deploys"}`), pt.Text("four"))
	for _, q := range []string{"how do we deploy?", "second", "third"} {
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	if found := h.request(1); !strings.Contains(found[len(found)-1].Content, "make ship on Fridays") {
		t.Fatalf("the first search found %q", found[len(found)-1].Content)
	}
	if err := h.r.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if res := h.turn("and how again?"); res.Err != nil {
		t.Fatal(res.Err)
	}
	system := func(req int) (sys []string, rest string) {
		for _, m := range h.request(req) {
			if m.Role == "system" {
				sys = append(sys, m.Content)
			} else {
				rest += m.Content + "\n"
			}
		}
		return sys, rest
	}
	before, _ := system(0)
	after, rest := system(5)
	if !slices.Equal(before, after) {
		t.Fatalf("the system part changed across the compaction:\n%q\n%q", before, after)
	}
	if joined := strings.Join(after, "\n"); !strings.Contains(joined, "Project memory: 2 facts are remembered") || !strings.Contains(joined, "- The tests run with make check") {
		t.Fatalf("the memory section did not survive:\n%s", joined)
	}
	if strings.Contains(rest, "make ship on Fridays") {
		t.Fatalf("the compacted request still holds the old search result:\n%s", rest)
	}
	again := h.request(6)
	if got := again[len(again)-1].Content; !strings.Contains(got, "Deploys go through make ship on Fridays") {
		t.Fatalf("searching again after the compaction found %q", got)
	}
}
