package storage

import (
	"context"
	"reflect"
	"testing"
)

// TestEarlierPagesMakeTheWholeHistory reads a session from its last
// message back in pages of 7: the pages, in order, are what LoadHistory
// reads, and the last says that nothing older remains.
func TestEarlierPagesMakeTheWholeHistory(t *testing.T) {
	s := benchStore(t, t.TempDir())
	ctx := context.Background()
	sess := windowSession(t, s, 20, 10)
	whole, err := s.LoadHistory(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := whole[len(whole)-1:]
	for more := true; more; {
		var page []Entry
		page, more, err = s.Window().Earlier(ctx, sess.ID, got[0].Message.ID, 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 || len(page) > 7 {
			t.Fatalf("a page of %d entries (more %v)", len(page), more)
		}
		got = append(page, got...)
	}
	if !reflect.DeepEqual(got, whole) {
		t.Fatalf("pages make %d entries, LoadHistory %d", len(got), len(whole))
	}
	if page, more, err := s.Window().Earlier(ctx, sess.ID, whole[0].Message.ID, 7); err != nil || page != nil || more {
		t.Fatalf("before the first message: %d entries, more %v (%v)", len(page), more, err)
	}
	// A page of none only asks whether anything lies above.
	last := whole[len(whole)-1].Message.ID
	if page, more, err := s.Window().Earlier(ctx, sess.ID, last, 0); err != nil || page != nil || !more {
		t.Fatalf("a page of none above the last message: %d entries, more %v (%v), want none and more", len(page), more, err)
	}
	if _, more, _ := s.Window().Earlier(ctx, sess.ID, whole[0].Message.ID, 0); more {
		t.Fatal("a page of none above the first message says more")
	}
}
