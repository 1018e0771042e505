package storage

import (
	"context"
	"errors"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// TestQueueKindPersists: the kind survives a reopen, and a flip changes it.
func TestQueueKindPersists(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openAt(t, dir)
	sess, _ := newSession(t, s, "/w")
	a, _ := s.EnqueueKind(ctx, sess.ID, "a", message.KindQueue)
	s.Enqueue(ctx, sess.ID, "b")
	if err := s.SetQueuedKind(ctx, a.ID, message.KindSteer); err != nil {
		t.Fatal(err)
	}
	if err := s.SetQueuedKind(ctx, a.ID, "later"); err == nil {
		t.Error("an unknown kind was accepted")
	}
	s.Close()
	s = openAt(t, dir)
	q, err := s.ListQueue(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 2 || q[0].Kind != message.KindSteer || q[1].Kind != message.KindSteer {
		t.Errorf("queue after reopen %+v", q)
	}
	if err := s.SetQueuedKind(ctx, "nope", message.KindQueue); !errors.Is(err, ErrNotFound) {
		t.Errorf("flip of a missing message: %v", err)
	}
}

// TestDeliverQueuedIsAtomic: a delivery removes exactly the rows it
// delivers and stores the message with them; when one of them is gone (a
// cancel took it), nothing is removed and nothing is stored.
func TestDeliverQueuedIsAtomic(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, _ := newSession(t, s, "/w")
	a, _ := s.Enqueue(ctx, sess.ID, "a")
	b, _ := s.EnqueueKind(ctx, sess.ID, "b", message.KindQueue)
	c, _ := s.Enqueue(ctx, sess.ID, "c")
	before, _ := s.LoadHistory(ctx, sess.ID)

	m := message.Message{SessionID: sess.ID, Role: message.RoleUser}
	err := s.DeliverQueued(ctx, []string{a.ID, "gone"}, &m, []*message.Part{{Type: message.PartText, Text: "a"}})
	if !errors.Is(err, ErrQueueChanged) {
		t.Fatalf("delivery of a row that is gone: %v", err)
	}
	if q, _ := s.ListQueue(ctx, sess.ID); queueTexts(q) != "a,b,c" {
		t.Errorf("a failed delivery changed the queue: %s", queueTexts(q))
	}
	if h, _ := s.LoadHistory(ctx, sess.ID); len(h) != len(before) {
		t.Errorf("a failed delivery stored a message")
	}

	m = message.Message{SessionID: sess.ID, Role: message.RoleUser}
	p := &message.Part{Type: message.PartText, Text: "First: a\n\nAlso: c"}
	if err := s.DeliverQueued(ctx, []string{a.ID, c.ID}, &m, []*message.Part{p}); err != nil {
		t.Fatal(err)
	}
	q, _ := s.ListQueue(ctx, sess.ID)
	if queueTexts(q) != "b" || q[0].ID != b.ID {
		t.Errorf("queue after delivery %s", queueTexts(q))
	}
	h, _ := s.LoadHistory(ctx, sess.ID)
	last := h[len(h)-1]
	if last.Message.ID != m.ID || len(last.Parts) != 1 || last.Parts[0].Text != p.Text || p.MessageID != m.ID {
		t.Errorf("delivered message %+v", last)
	}
}

// TestDeliveredMessageIsSearchable: a queued message delivered into the
// conversation is in the history index like one sent directly.
func TestDeliveredMessageIsSearchable(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, _ := newSession(t, s, "/w")
	q, err := s.Enqueue(ctx, sess.ID, "check the zebrafish parser")
	if err != nil {
		t.Fatal(err)
	}
	m := message.Message{SessionID: sess.ID, Role: message.RoleUser}
	if err := s.DeliverQueued(ctx, []string{q.ID}, &m, []*message.Part{{Type: message.PartText, Text: q.Text}}); err != nil {
		t.Fatal(err)
	}
	hits, err := s.SearchSession(ctx, sess.ID, "zebrafish", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 {
		t.Fatalf("search for a delivered message's word: %d hits, want 1", len(hits))
	}
}
