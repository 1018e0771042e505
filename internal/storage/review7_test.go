package storage

import (
	"context"
	"reflect"
	"testing"
)

// review7: the window's parts are read through the driver with their
// columns mapped by hand (readWindowParts: id, message_id, type, state,
// created_at, updated_at; session_id set from the argument). Every part
// here has created_at and updated_at of its own, so a swap of the two
// cells, or a session id the row would not give, differs from Scan's.
func TestReview7DriverReadMatchesScanOnEveryPartColumn(t *testing.T) {
	s := benchStoreT(t)
	ctx := context.Background()
	sess := windowSession(t, s, 30, 10)
	if _, err := s.db.ExecContext(ctx, `UPDATE parts SET created_at = created_at - rowid * 7,
		updated_at = updated_at + rowid * 11 WHERE session_id = ?`, sess.ID); err != nil {
		t.Fatal(err)
	}
	whole, err := s.LoadHistory(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Window().Load(ctx, sess.ID, func([]Entry) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != len(whole) {
		t.Fatalf("window of %d entries, history of %d", len(w), len(whole))
	}
	n := 0
	for i := range w {
		if len(w[i].Parts) != len(whole[i].Parts) {
			t.Fatalf("entry %d: %d parts, history %d", i, len(w[i].Parts), len(whole[i].Parts))
		}
		for j := range w[i].Parts {
			n++
			if !reflect.DeepEqual(w[i].Parts[j], whole[i].Parts[j]) {
				t.Fatalf("part %d/%d: window %+v, history %+v", i, j, w[i].Parts[j], whole[i].Parts[j])
			}
		}
	}
	if n == 0 {
		t.Fatal("no parts compared")
	}
}
