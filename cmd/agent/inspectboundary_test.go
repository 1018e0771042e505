package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
)

// TestInspectShowsCacheBoundaries: each request that broke the prompt
// cache's prefix is a timeline row saying why, from where, and which found
// tools joined the tools array then.
func TestInspectShowsCacheBoundaries(t *testing.T) {
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
	rows := []loop.CacheBoundary{
		{Reason: loop.BoundaryPrune, Model: "m", AtMessage: 4},
		{Reason: loop.BoundaryCompaction, Model: "m", AtMessage: 1, Joined: []string{"github__create_issue", "jira__create_issue"}, JoinedNow: 1},
		{Reason: loop.BoundaryModel, Model: "m2", AtMessage: -1},
	}
	for _, r := range rows {
		if err := st.LogEvent(ctx, sess.ID, loop.CacheBoundaryKind, r); err != nil {
			t.Fatal(err)
		}
	}
	ins, err := inspectSession(ctx, st, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"prompt cache re-written: prune (from message 4)",
		"prompt cache re-written: compaction (from message 1); 1 found tools joined: jira__create_issue",
		"prompt cache re-written: model (from the tools array)",
	}
	if len(ins.Timeline) != len(want) {
		t.Fatalf("%d timeline rows, want %d: %+v", len(ins.Timeline), len(want), ins.Timeline)
	}
	for i, e := range ins.Timeline {
		if e.Kind != loop.CacheBoundaryKind || e.Reason != rows[i].Reason || e.Boundary == nil {
			t.Errorf("row %d = %+v", i, e)
			continue
		}
		if got := timelineDetail(e); got != want[i] {
			t.Errorf("row %d detail %q, want %q", i, got, want[i])
		}
	}
	var out bytes.Buffer
	if err := printTimeline(&out, ins); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), []byte("cache_boundary")) || !bytes.Contains(out.Bytes(), []byte("joined: jira__create_issue")) {
		t.Errorf("printed timeline:\n%s", out.String())
	}
}
