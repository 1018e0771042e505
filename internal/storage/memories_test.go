package storage

import (
	"context"
	"errors"
	"testing"
)

// TestMemoriesScopeSearchAndLifecycle: memories are kept per scope; a
// proposed one is listed but neither counted nor found until accepted;
// edits re-index; a removed one is gone.
func TestMemoriesScopeSearchAndLifecycle(t *testing.T) {
	ctx := context.Background()
	q := openTest(t).Memories()
	add := func(scope, text, status string) Memory {
		m := Memory{Scope: scope, Text: text, Status: status, SessionID: "s1", MessageID: "m1"}
		if err := q.Add(ctx, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := add("/p", "The tests run with make check", "")
	add("/other", "Deploys go through make ship", "")
	u := add(ScopeUser, "The user prefers tabs", "")
	p := add("/p", "The staging database is called orchid", MemoryProposed)
	if err := q.Add(ctx, &Memory{Scope: "/p", Text: "  "}); err == nil {
		t.Fatal("an empty memory was stored")
	}

	if n, err := q.Count(ctx, "/p", ScopeUser); err != nil || n != 2 {
		t.Fatalf("count = %d, %v; want 2 (the proposed one and other projects left out)", n, err)
	}
	if all, _ := q.List(ctx, "/p"); len(all) != 2 || all[0].ID != a.ID || all[1].Status != MemoryProposed {
		t.Fatalf("list /p = %+v", all)
	}
	if hits, err := q.Search(ctx, "how do I run the tests?", 5, "/p", ScopeUser); err != nil || len(hits) == 0 || hits[0].ID != a.ID || hits[0].SessionID != "s1" {
		t.Fatalf("search = %+v, %v", hits, err)
	}
	if hits, _ := q.Search(ctx, "orchid", 5, "/p"); len(hits) != 0 {
		t.Fatalf("a proposed memory was found: %+v", hits)
	}
	if err := q.Accept(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if hits, _ := q.Search(ctx, "orchid", 5, "/p"); len(hits) != 1 {
		t.Fatalf("accepted memory not found: %+v", hits)
	}
	if err := q.Edit(ctx, u.ID, "The user prefers spaces"); err != nil {
		t.Fatal(err)
	}
	if hits, _ := q.Search(ctx, "tabs", 5, ScopeUser); len(hits) != 0 {
		t.Fatalf("the old text is still indexed: %+v", hits)
	}
	if hits, _ := q.Search(ctx, "spaces", 5, ScopeUser); len(hits) != 1 {
		t.Fatalf("the new text is not indexed: %+v", hits)
	}
	if err := q.SetPinned(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	if m, _ := q.Get(ctx, a.ID); !m.Pinned {
		t.Fatal("not pinned")
	}
	if err := q.Remove(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Get(ctx, a.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get removed = %v", err)
	}
	if err := q.Remove(ctx, a.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("remove twice = %v", err)
	}
	if hits, _ := q.Search(ctx, "tests", 5, "/p"); len(hits) != 0 {
		t.Fatalf("a removed memory was found: %+v", hits)
	}
}

// TestMemoryReadsOpenNoReader: the memory reads a session makes as it
// opens (Count for the tools and the prompt's section, List for the
// pinned ones) go through the writing connection of a writable store, as
// ListQueueLatest does: a one-step `agent run` opens no reading
// connection (each costs a file open and a parse of the whole schema)
// for them. A read-only store reads through its readers.
func TestMemoryReadsOpenNoReader(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openAt(t, dir)
	m := Memory{Scope: "/w", Text: "make check runs the tests", Pinned: true}
	if err := s.Memories().Add(ctx, &m); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Memories().Count(ctx, "/w"); err != nil || n != 1 {
		t.Fatalf("Count = %d, %v", n, err)
	}
	if all, err := s.Memories().List(ctx, "/w"); err != nil || len(all) != 1 {
		t.Fatalf("List = %v, %v", all, err)
	}
	if got, err := s.Memories().Get(ctx, m.ID); err != nil || got.Text != m.Text {
		t.Fatalf("Get = %v, %v", got, err)
	}
	if found, err := s.Memories().Search(ctx, "tests", 5, "/w"); err != nil || len(found) != 1 {
		t.Fatalf("Search = %v, %v", found, err)
	}
	if n := s.rdb.Stats().OpenConnections; n != 0 {
		t.Errorf("%d reading connections opened by the memory reads", n)
	}
	s.Close()
	ro, err := OpenReadOnly(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if n, err := ro.Memories().Count(ctx, "/w"); err != nil || n != 1 {
		t.Fatalf("read-only Count = %d, %v", n, err)
	}
}
