package storage

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// The window's parts decoded through the pipe (statepipe.go) are
// LoadHistory's, over many batches, whatever the first array's guess
// (partChunks: one array, several, a message's parts split between two
// and copied into one); a state that does not decode fails the read.
func TestStatePipeDecodesAsLoadHistory(t *testing.T) {
	s := benchStore(t, t.TempDir())
	ctx := context.Background()
	sess := windowSession(t, s, 120, 1000)
	whole, err := s.LoadHistory(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	nParts := 0
	for _, e := range whole {
		nParts += len(e.Parts)
	}
	if nParts <= 2*statePipeBatch {
		t.Fatalf("%d parts: want more than two batches", nParts)
	}
	read := func(n int) ([]Entry, error) {
		conn, err := s.rdb.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		entries, err := readWindowMessages(ctx, conn, sess.ID, "", len(whole))
		if err != nil {
			t.Fatal(err)
		}
		return entries, readWindowParts(ctx, conn, sess.ID, "", entries, n, nil)
	}
	for _, n := range []int{nParts, nParts - 1, statePipeBatch + 3, 0, 1, 5, 2 * nParts} {
		got, err := read(n)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, whole) {
			t.Errorf("parts read into an array for %d of %d: not LoadHistory's", n, nParts)
		}
		for _, e := range got {
			if cap(e.Parts) != len(e.Parts) {
				t.Fatalf("first array for %d: message %s's parts have room for %d more: an append would write into another's", n, e.Message.ID, cap(e.Parts)-len(e.Parts))
			}
		}
	}
	// A state that does not decode, halfway.
	bad := whole[len(whole)/2].Parts[0].ID
	if _, err := s.db.ExecContext(ctx, `UPDATE parts SET state = '{"text": 1' WHERE id = ?`, bad); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{nParts, 0} {
		if _, err := read(n); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("array for %d: error %v, want one naming part %s", n, err, bad)
		}
	}
}
