package storage

import (
	"context"
	"errors"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// AddUserMessage writes the message, its parts and the title together, and
// the text is searchable as if written by UpsertPart.
func TestAddUserMessageWritesMessagePartsAndTitle(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	sess := &message.Session{Model: "m", Dir: "/w"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	m := &message.Message{SessionID: sess.ID, Role: message.RoleUser}
	parts := []*message.Part{{Type: message.PartText, Text: "find the zebracorn"}}
	got, err := s.AddUserMessage(ctx, m, parts, "find the zebracorn")
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "find the zebracorn" || m.ID == "" || parts[0].ID == "" || parts[0].MessageID != m.ID {
		t.Errorf("session %+v, message %q, part %+v", got, m.ID, parts[0])
	}
	stored, err := s.GetSession(ctx, sess.ID)
	if err != nil || stored.Title != "find the zebracorn" {
		t.Errorf("stored session %+v, %v", stored, err)
	}
	history, err := s.LoadHistory(ctx, sess.ID)
	if err != nil || len(history) != 1 || len(history[0].Parts) != 1 || history[0].Parts[0].Text != "find the zebracorn" {
		t.Fatalf("history %+v, %v", history, err)
	}
	hits, err := s.SearchSession(ctx, sess.ID, "zebracorn", 10)
	if err != nil || len(hits) != 1 {
		t.Errorf("search: %d hits, %v", len(hits), err)
	}

	// Without a title the title stays.
	if _, err := s.AddUserMessage(ctx, &message.Message{SessionID: sess.ID, Role: message.RoleUser},
		[]*message.Part{{Type: message.PartText, Text: "more"}}, ""); err != nil {
		t.Fatal(err)
	}
	if stored, _ := s.GetSession(ctx, sess.ID); stored.Title != "find the zebracorn" {
		t.Errorf("title became %q", stored.Title)
	}
}

// Nothing is written for a session that does not exist.
func TestAddUserMessageUnknownSession(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	_, err := s.AddUserMessage(ctx, &message.Message{SessionID: "NOSUCH", Role: message.RoleUser},
		[]*message.Part{{Type: message.PartText, Text: "x"}}, "x")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	var n int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM messages`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d messages stored, %v", n, err)
	}
}
