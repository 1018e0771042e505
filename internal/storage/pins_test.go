package storage

import (
	"context"
	"errors"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// TestPinsAddEditRemove: pins are per session, listed oldest first; an edit
// rewrites the text; a removed pin is no longer listed but stays in the
// table; empty texts and unknown sessions or pins are refused.
func TestPinsAddEditRemove(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	a, b := &message.Session{Dir: "/a"}, &message.Session{Dir: "/b"}
	for _, sess := range []*message.Session{a, b} {
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
	}
	p1 := message.Pin{SessionID: a.ID, Text: "use tabs"}
	p2 := message.Pin{SessionID: a.ID, Text: "the API is v2", MessageID: "M1"}
	p3 := message.Pin{SessionID: b.ID, Text: "other session"}
	for _, p := range []*message.Pin{&p1, &p2, &p3} {
		if err := s.AddPin(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddPin(ctx, &message.Pin{SessionID: a.ID, Text: "  "}); err == nil {
		t.Error("an empty pin was stored")
	}
	if err := s.AddPin(ctx, &message.Pin{SessionID: "NOPE", Text: "x"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("pin to an unknown session: %v, want ErrNotFound", err)
	}
	if err := s.UpdatePin(ctx, p1.ID, "use spaces"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemovePin(ctx, p2.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RemovePin(ctx, p2.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("removing a removed pin: %v, want ErrNotFound", err)
	}
	if err := s.UpdatePin(ctx, p2.ID, "again"); !errors.Is(err, ErrNotFound) {
		t.Errorf("editing a removed pin: %v, want ErrNotFound", err)
	}
	got, err := s.ListPins(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Text != "use spaces" || got[0].ID != p1.ID {
		t.Fatalf("pins of a = %+v, want the edited first one only", got)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM pins WHERE session_id = ?`, a.ID).Scan(&n); err != nil || n != 2 {
		t.Errorf("pins rows of a = %d, %v; want 2 (removed ones stay)", n, err)
	}
	if got, _ := s.ListPins(ctx, b.ID); len(got) != 1 || got[0].Text != "other session" {
		t.Errorf("pins of b = %+v", got)
	}
}
