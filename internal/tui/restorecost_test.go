package tui

import (
	"context"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/tools"
)

// TestContextOverlayShowsRestoreCost: after a compaction, /context says
// what /compact undo and a full restore would need — the undo_tokens and
// restore_tokens `agent context --json` computes from the stored session.
func TestContextOverlayShowsRestoreCost(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Handle(func(req pt.Request) pt.Step {
		msgs := req.Chat.Messages
		if strings.HasPrefix(msgs[len(msgs)-1].Content, "Summarise the conversation above") {
			return pt.Text("## Goal\nShip it.\n\n## Next steps\nNone.")
		}
		return pt.Text("ok " + strings.Repeat("words ", 300))
	})
	for i, q := range []string{"first question", "second", "third"} {
		h.typeText(q)
		h.key("enter")
		h.waitFor("the turn", func(m *Model) bool { return idle(m) && steps(h.srv) == i+1 })
	}
	h.typeText("/compact")
	h.key("enter")
	h.waitFor("the compaction", func(m *Model) bool { return !m.compacting && len(h.srv.Requests()) >= 4 && idle(m) })

	_, want, _, err := loop.ReadContext(context.Background(), h.store, h.cfg, tools.NewRegistry(), h.m.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want.Undo == nil {
		t.Fatal("agent context finds nothing to undo after the compaction")
	}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 50})
	h.typeText("/context")
	h.key("enter")
	h.waitFor("the restore cost", func(m *Model) bool {
		d, ok := m.drawer.(*contextDrawer)
		return ok && d.restore != nil
	})
	got := h.m.drawer.(*contextDrawer).restore
	if got.Undo == nil || *got.Undo != *want.Undo || got.Full != want.Full {
		t.Errorf("/context prices the restore at undo %v, full %d; agent context at undo %d, full %d", got.Undo, got.Full, *want.Undo, want.Full)
	}
	line := "Undo of the last compaction (/compact undo) would need ~" + formatTokens(*want.Undo) + " tokens (fits)"
	if s := h.screen(); !strings.Contains(s, line) {
		t.Errorf("the overlay does not say %q:\n%s", line, s)
	}
}

func TestRestoreLines(t *testing.T) {
	n := int64(42_000)
	for _, c := range []struct {
		cost loop.RestoreCost
		want []string
	}{
		{loop.RestoreCost{Full: 9000, Fit: 100_000}, nil},
		{loop.RestoreCost{Undo: &n, Full: 42_000, UndoKind: "compaction", Fit: 100_000},
			[]string{"Undo of the last compaction (/compact undo) would need ~42K tokens (fits)"}},
		{loop.RestoreCost{Undo: &n, Full: 150_000, UndoKind: "compaction", Fit: 100_000}, []string{
			"Undo of the last compaction (/compact undo) would need ~42K tokens (fits)",
			"A full restore (every compaction undone, every cleared output back) would need ~150K tokens (does not fit: compaction starts at ~100K; /model to a larger window first)"}},
		{loop.RestoreCost{Undo: &n, Full: 42_000, UndoKind: "pruned", Fit: 30_000},
			[]string{"Restoring the cleared tool outputs (/compact undo) would need ~42K tokens (does not fit: compaction starts at ~30K; /model to a larger window first)"}},
	} {
		if got := restoreLines(c.cost); !slices.Equal(got, c.want) {
			t.Errorf("restoreLines(%+v)\n got %q\nwant %q", c.cost, got, c.want)
		}
	}
}
