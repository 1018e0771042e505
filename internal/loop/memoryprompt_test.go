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

// TestMemorySectionStaysForTheSession: the system prompt carries the
// memory section made at Open (the count, the pinned ones); memories
// added and pinned between turns change no byte of the next turn's system
// messages, and /context's memory row counts the section.
func TestMemorySectionStaysForTheSession(t *testing.T) {
	ctx := context.Background()
	var dir string
	h := newHarnessWith(t, func(o *Options, _ *config.Config) {
		dir = o.Dir
		m := storage.Memory{Scope: o.Dir, Text: "The tests run with make check", Pinned: true}
		if err := o.Store.Memories().Add(ctx, &m); err != nil {
			t.Fatal(err)
		}
	}, pt.Text("one"), pt.Text("two"))
	if res := h.turn("first"); res.Err != nil {
		t.Fatal(res.Err)
	}
	for _, text := range []string{"Deploys go through make ship", "The user is called Ada"} {
		m := storage.Memory{Scope: dir, Text: text, Pinned: true}
		if err := h.store.Memories().Add(ctx, &m); err != nil {
			t.Fatal(err)
		}
	}
	if res := h.turn("second"); res.Err != nil {
		t.Fatal(res.Err)
	}
	system := func(i int) []string {
		var out []string
		for _, m := range h.request(i) {
			if m.Role == "system" {
				out = append(out, m.Content)
			}
		}
		return out
	}
	first, second := system(0), system(1)
	joined := strings.Join(first, "\n")
	if !strings.Contains(joined, "Project memory: 1 fact is remembered") || !strings.Contains(joined, "- The tests run with make check") {
		t.Fatalf("the first request's system part lacks the memory section:\n%s", joined)
	}
	if !slices.Equal(first, second) {
		t.Fatalf("the system messages changed after memories were added mid-session:\n%q\n%q", first, second)
	}
	if got := h.r.Reading().Breakdown.PromptLines.Memory; got <= 0 {
		t.Fatalf("memory row = %d, want the section's estimate", got)
	}
	named := h.r.Reading().Breakdown.PromptLines.Named()
	if len(named) == 0 || named[len(named)-1].Name != "memory" {
		t.Fatalf("named prompt lines = %+v, want a memory row", named)
	}
}
