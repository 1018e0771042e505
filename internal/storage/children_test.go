package storage

import (
	"context"
	"errors"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// TestChildSessions: a subagent's session names its parent, stays out of
// the lists and of "latest" (so -c continues the parent), is listed under
// its parent, and goes when the parent is removed, with its messages and
// its own children.
func TestChildSessions(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	parent, _ := newSession(t, s, "/w")
	child := &message.Session{Title: "child", Model: "m", Dir: "/w", ParentID: parent.ID}
	if err := s.CreateSession(ctx, child); err != nil {
		t.Fatal(err)
	}
	grandchild := &message.Session{Title: "grandchild", Dir: "/w", ParentID: child.ID}
	if err := s.CreateSession(ctx, grandchild); err != nil {
		t.Fatal(err)
	}
	// The child is the most recently updated session of /w.
	if err := s.CreateMessage(ctx, &message.Message{SessionID: child.ID, Role: message.RoleUser}); err != nil {
		t.Fatal(err)
	}

	got, err := s.GetSession(ctx, child.ID)
	if err != nil || got.ParentID != parent.ID {
		t.Fatalf("child = %+v, %v; want parent %s", got, err, parent.ID)
	}
	if got, _ := s.GetSession(ctx, parent.ID); got.ParentID != "" {
		t.Errorf("parent has parent %q", got.ParentID)
	}
	for _, dir := range []string{"/w", ""} {
		list, err := s.ListSessions(ctx, dir)
		if err != nil || len(list) != 1 || list[0].ID != parent.ID {
			t.Errorf("ListSessions(%q) = %v, %v; want the parent only", dir, ids(list), err)
		}
		latest, err := s.LatestSession(ctx, dir)
		if err != nil || latest.ID != parent.ID {
			t.Errorf("LatestSession(%q) = %v, %v; want the parent", dir, latest, err)
		}
	}
	kids, err := s.ChildSessions(ctx, parent.ID)
	if err != nil || len(kids) != 1 || kids[0].ID != child.ID || kids[0].Title != "child" {
		t.Errorf("ChildSessions = %v, %v; want the child", ids(kids), err)
	}

	if err := s.DeleteSession(ctx, parent.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{child.ID, grandchild.ID} {
		if _, err := s.GetSession(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("session %s outlived its parent: %v", id, err)
		}
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM messages`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d messages left, %v", n, err)
	}
}

func ids(list []message.Session) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.ID)
	}
	return out
}

// TestSearchSessionsNamesTheParentOfAChildsHit: a search across sessions
// finds what a subagent's session holds, under the session the user knows
// (its top-level parent), never under the hidden child.
func TestSearchSessionsNamesTheParentOfAChildsHit(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	parent, pm := newSession(t, s, "/w")
	child := &message.Session{Title: "child", Model: "m", Dir: "/w", ParentID: parent.ID}
	if err := s.CreateSession(ctx, child); err != nil {
		t.Fatal(err)
	}
	grandchild := &message.Session{Title: "grandchild", Model: "m", Dir: "/w", ParentID: child.ID}
	if err := s.CreateSession(ctx, grandchild); err != nil {
		t.Fatal(err)
	}
	other, om := newSession(t, s, "/w")
	add := func(sessionID, messageID, text string) {
		t.Helper()
		if messageID == "" {
			m := &message.Message{SessionID: sessionID, Role: message.RoleAssistant}
			if err := s.CreateMessage(ctx, m); err != nil {
				t.Fatal(err)
			}
			messageID = m.ID
		}
		if err := s.UpsertPart(ctx, &message.Part{SessionID: sessionID, MessageID: messageID, Type: message.PartText, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	add(child.ID, "", "the zebra lives in the child")
	add(grandchild.ID, "", "a zebra deeper down")
	add(parent.ID, pm.ID, "the parent knows no such animal")
	add(other.ID, om.ID, "another zebra elsewhere")
	found, err := s.SearchSessions(ctx, "zebra", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	hits := map[string]int{}
	for _, sh := range found {
		hits[sh.Session.ID] += len(sh.Hits)
	}
	if len(found) != 2 || hits[parent.ID] != 2 || hits[other.ID] != 1 {
		t.Fatalf("found %d sessions, hits %v; want the parent (2 hits: its child's and grandchild's) and the other", len(found), hits)
	}
}
