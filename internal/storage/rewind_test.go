package storage

import (
	"context"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// addEntry stores a message with one text part (and optionally a patch).
func addEntry(t *testing.T, s *Store, sessionID string, role message.Role, text string, patch *message.PatchState) message.Message {
	t.Helper()
	ctx := context.Background()
	m := message.Message{SessionID: sessionID, Role: role}
	if err := s.CreateMessage(ctx, &m); err != nil {
		t.Fatal(err)
	}
	p := message.Part{SessionID: sessionID, MessageID: m.ID, Type: message.PartText, Text: text}
	if err := s.UpsertPart(ctx, &p); err != nil {
		t.Fatal(err)
	}
	if patch != nil {
		pp := message.Part{SessionID: sessionID, MessageID: m.ID, Type: message.PartPatch, Patch: patch}
		if err := s.UpsertPart(ctx, &pp); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// TestRewindMarksAndRedoUnmarks: a rewind marks every message from the one
// named on (never deleting it), an update of a message keeps the mark, a
// redo clears exactly that rewind's marks, and the snapshot ids of patches
// and rewinds are all named for the store's cleanup.
func TestRewindMarksAndRedoUnmarks(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess := &message.Session{Dir: "/w"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	u1 := addEntry(t, s, sess.ID, message.RoleUser, "one", nil)
	addEntry(t, s, sess.ID, message.RoleAssistant, "a1", &message.PatchState{Before: "b1", After: "a1"})
	u2 := addEntry(t, s, sess.ID, message.RoleUser, "two", nil)
	a2 := addEntry(t, s, sess.ID, message.RoleAssistant, "a2", &message.PatchState{Before: "b2", After: "a2"})

	rw := &message.Rewind{SessionID: sess.ID, Kind: message.RewindKindRewind, Mode: message.RewindBoth, MessageID: u2.ID, Target: "b2", Before: "x", After: "y"}
	marked, err := s.AddRewind(ctx, rw)
	if err != nil {
		t.Fatal(err)
	}
	if len(marked) != 2 || marked[0] != u2.ID || marked[1] != a2.ID {
		t.Fatalf("marked %v, want [%s %s]", marked, u2.ID, a2.ID)
	}
	a2.Error = "x"
	if err := s.UpdateMessage(ctx, &a2); err != nil { // a stale copy without the mark
		t.Fatal(err)
	}
	h, _ := s.LoadHistory(ctx, sess.ID)
	if len(h) != 4 || h[0].Message.Rewound() || !h[2].Message.Rewound() || h[3].Message.RewindID != rw.ID {
		t.Fatalf("after rewind: %+v", h)
	}
	ids, err := s.SnapshotIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"b1", "a1", "b2", "a2", "x", "y"} {
		if !ids[id] {
			t.Errorf("snapshot id %s not named: %v", id, ids)
		}
	}

	if err := s.AddRedo(ctx, &message.Rewind{SessionID: sess.ID, Kind: message.RewindKindRedo, Mode: message.RewindBoth, Redoes: rw.ID}); err != nil {
		t.Fatal(err)
	}
	h, _ = s.LoadHistory(ctx, sess.ID)
	for _, e := range h {
		if e.Message.Rewound() {
			t.Errorf("message %s still rewound after redo", e.Message.ID)
		}
	}
	list, _ := s.ListRewinds(ctx, sess.ID)
	if len(list) != 2 || list[0].RedoneAt.IsZero() || list[1].Redoes != rw.ID {
		t.Errorf("rewinds = %+v", list)
	}
	_ = u1
}

// TestForkSession: a fork copies the conversation up to a message under
// new ids, without rewound messages, keeping summary/tail references
// pointing into the copy.
func TestForkSession(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess := &message.Session{Dir: "/w", Title: "orig", Model: "m"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	u1 := addEntry(t, s, sess.ID, message.RoleUser, "one", nil)
	a1 := addEntry(t, s, sess.ID, message.RoleAssistant, "a1", nil)
	marker := message.Message{SessionID: sess.ID, Role: message.RoleUser}
	if err := s.CreateMessage(ctx, &marker); err != nil {
		t.Fatal(err)
	}
	cp := message.Part{SessionID: sess.ID, MessageID: marker.ID, Type: message.PartCompaction,
		Compaction: &message.CompactionState{TailFrom: a1.ID, SummaryID: "later"}}
	if err := s.UpsertPart(ctx, &cp); err != nil {
		t.Fatal(err)
	}
	u2 := addEntry(t, s, sess.ID, message.RoleUser, "two", nil)
	addEntry(t, s, sess.ID, message.RoleAssistant, "a2", nil)
	if _, err := s.AddRewind(ctx, &message.Rewind{SessionID: sess.ID, Kind: message.RewindKindRewind, Mode: message.RewindConversation, MessageID: u2.ID}); err != nil {
		t.Fatal(err)
	}
	u3 := addEntry(t, s, sess.ID, message.RoleUser, "three", nil)
	addEntry(t, s, sess.ID, message.RoleAssistant, "a3", nil)

	fork, err := s.ForkSession(ctx, sess.ID, u3.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fork.Dir != "/w" || fork.Model != "m" || fork.ID == sess.ID {
		t.Errorf("fork = %+v", fork)
	}
	h, _ := s.LoadHistory(ctx, fork.ID)
	var texts []string
	for _, e := range h {
		if e.Message.ID == u1.ID || e.Message.SessionID != fork.ID {
			t.Errorf("copied message keeps an old id or session: %+v", e.Message)
		}
		for _, p := range e.Parts {
			if p.Type == message.PartText {
				texts = append(texts, p.Text)
			}
			if p.Compaction != nil && p.Compaction.TailFrom != h[1].Message.ID {
				t.Errorf("tail_from = %s, want the copy of a1 %s", p.Compaction.TailFrom, h[1].Message.ID)
			}
		}
	}
	if got := texts; len(got) != 3 || got[0] != "one" || got[1] != "a1" || got[2] != "three" {
		t.Errorf("fork texts = %q, want one, a1, three", got)
	}
	if _, err := s.ForkSession(ctx, sess.ID, u2.ID); err == nil {
		t.Error("fork at a rewound message succeeded")
	}
	orig, _ := s.LoadHistory(ctx, sess.ID)
	if len(orig) != 7 {
		t.Errorf("original has %d messages, want 7", len(orig))
	}
}
