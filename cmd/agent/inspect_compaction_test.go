package main

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
)

// TestInspectShowsEveryCompactionAttempt: every attempt the loop logs —
// failed, rejected, fallback, summary — and every refusal for size is a
// timeline row with its reason, tokens before → after and the model that
// wrote it (issue 12.10).
func TestInspectShowsEveryCompactionAttempt(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess := &message.Session{Model: "m"}
	if err := st.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	logs := []struct {
		kind string
		data any
	}{
		{"context_limit", message.ContextLimit{Model: "m", RefusedEstimate: 20000, CalculatorTotal: 4000, StatedLimit: 12000, StatedPrompt: 21000, Ceiling: 11428, CompactAt: 10000}},
		{"compaction_failed", message.CompactionState{Auto: true, Reason: "context_error", TokensBefore: 20000, TokensAfter: 20000, Outcome: message.CompactionFailed, Model: "tiny", Error: "summarise: not found", Attempt: 1}},
		{"compaction_rejected", message.CompactionState{Auto: true, Reason: "context_error", TokensBefore: 20000, TokensAfter: 20000, Outcome: message.CompactionRejected, Model: "m", Error: "compaction: empty summary", Attempt: 2}},
		{"compaction_fallback", message.CompactionState{Auto: true, Reason: "context_error", TokensBefore: 20000, TokensAfter: 5000, Outcome: message.CompactionFallback, Note: "compacted without a summary: 4 turns dropped, kept in the database", DroppedTurns: 4, Attempt: 3}},
		{"compaction", message.CompactionState{Reason: "manual", TokensBefore: 9000, TokensAfter: 3000, Outcome: message.CompactionSummary, Model: "m", Attempt: 1}},
	}
	for _, l := range logs {
		if err := st.LogEvent(ctx, sess.ID, l.kind, l.data); err != nil {
			t.Fatal(err)
		}
	}
	ins, err := inspectSession(ctx, st, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ins.Timeline) != len(logs) {
		t.Fatalf("%d timeline rows, want %d", len(ins.Timeline), len(logs))
	}
	want := []string{
		"refused by the provider, limit 12000, request 21000; calculator said 4000; compaction point now 10000",
		"context_error by tiny: summarise: not found",
		"context_error by m: compaction: empty summary",
		"context_error: compacted without a summary: 4 turns dropped, kept in the database",
		"manual by m",
	}
	for i, e := range ins.Timeline {
		if e.Kind != logs[i].kind {
			t.Errorf("row %d kind %q, want %q", i, e.Kind, logs[i].kind)
		}
		if got := timelineDetail(e); got != want[i] {
			t.Errorf("row %d detail %q, want %q", i, got, want[i])
		}
		if e.TokensBefore == 0 || e.TokensAfter == 0 {
			t.Errorf("row %d without tokens: %+v", i, e)
		}
	}
	if r := ins.Timeline[3]; r.Outcome != message.CompactionFallback || r.DroppedTurns != 4 || r.Model != "" {
		t.Errorf("fallback row %+v", r)
	}
	if !strings.Contains(ins.Timeline[1].Model, "tiny") {
		t.Errorf("failed row names no model: %+v", ins.Timeline[1])
	}
}
