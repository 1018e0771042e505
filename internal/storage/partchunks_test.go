package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// A message whose parts begin in one of partChunks' arrays and end in
// the next is copied into one array; that copy must keep the window's
// contract (windowread.go): each entry's parts have no room past their
// length, so that an append by the loop copies instead of writing into
// an array someone else holds (a history copy's).
func TestSplitMessagesPartsHaveNoRoom(t *testing.T) {
	s := benchStore(t, t.TempDir())
	ctx := context.Background()
	sess := &message.Session{Title: "split", Dir: "/w"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	var h []Entry
	for i := range 40 {
		e := Entry{Message: message.Message{ID: message.NewID(), Role: message.RoleAssistant, FinishReason: "stop"}}
		for j := range 5 {
			e.Parts = append(e.Parts, message.Part{Type: message.PartText, Text: fmt.Sprintf("m%d p%d", i, j)})
		}
		h = append(h, e)
	}
	if err := s.ImportHistory(ctx, sess.ID, h); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 16, 17, 18, 19, 21, 40} {
		conn, err := s.rdb.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := readWindowMessages(ctx, conn, sess.ID, "", len(h))
		if err != nil {
			t.Fatal(err)
		}
		err = readWindowParts(ctx, conn, sess.ID, "", entries, n, nil)
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range entries {
			if len(e.Parts) != 5 {
				t.Fatalf("first array %d: message %d has %d parts, want 5", n, i, len(e.Parts))
			}
			if cap(e.Parts) != len(e.Parts) {
				t.Errorf("first array %d: message %d's parts (split between two arrays) have room for %d more: an append does not copy", n, i, cap(e.Parts)-len(e.Parts))
			}
		}
	}
}

// One long first message does not size the window's next array by
// itself: partChunks' rate counts the message being read and is bounded
// (review9).
func TestPartChunksRateIsBounded(t *testing.T) {
	// The first array holds message 0's 250 parts exactly, so the next
	// one is sized when message 1's first part comes, at the rate so far.
	c := partChunks{next: 250, messages: 200}
	for range 250 { // message 0 holds 250 parts
		c.add(message.Part{}, 0)
	}
	c.add(message.Part{}, 1)
	if len(c.full) != 1 {
		t.Fatalf("%d arrays filled, want the first alone: the test shows nothing", len(c.full))
	}
	if got := cap(c.cur); got > 17*maxPartsPerMessage*200/16 {
		t.Fatalf("after a 250-part first message the next array has room for %d parts", got)
	}
}
