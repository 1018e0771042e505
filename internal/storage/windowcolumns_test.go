package storage

import (
	"context"
	"reflect"
	"testing"
)

// The driver's read of the window's messages (rawrows.go,
// messageFromCells) maps each column by hand: the differential test
// (TestWindowReadThroughTheDriverReadsAsScan) compares a session whose
// messages leave most columns at their zero (usage, cost, error, parent,
// rewind id, finished_at), where a swap of two of those columns would
// pass. Here every column of every message holds a value of its own, and
// the driver's read must still be Scan's.
func TestDriverReadMatchesScanOnEveryColumn(t *testing.T) {
	s := benchStore(t, t.TempDir())
	ctx := context.Background()
	sess := windowSession(t, s, 30, 10)
	if _, err := s.db.ExecContext(ctx, `UPDATE messages SET
		parent_id = 'p' || rowid, model = 'm' || rowid, finish_reason = 'f' || rowid, error = 'e' || rowid,
		input_tokens = rowid * 3 + 1, output_tokens = rowid * 3 + 2, reasoning_tokens = rowid * 3 + 3,
		cached_input_tokens = rowid * 5 + 1, cache_write_tokens = rowid * 5 + 2, cost_usd = rowid * 0.25,
		finished_at = updated_at + rowid, rewind_id = 'r' || rowid WHERE session_id = ?`, sess.ID); err != nil {
		t.Fatal(err)
	}
	w, whole := windowAndHistory(t, s, sess.ID)
	if len(w) == 0 || w[0].Message.RewindID == "" || w[0].Message.Usage.CacheWrite == 0 || w[0].Message.FinishedAt.IsZero() {
		t.Fatalf("the columns were not set: %+v", w)
	}
	for i := range w {
		if !reflect.DeepEqual(w[i].Message, whole[i].Message) {
			t.Fatalf("message %d: window %+v, history %+v", i, w[i].Message, whole[i].Message)
		}
	}
}

// The window's parts are read through the driver with their
// columns mapped by hand (readWindowParts: id, message_id, type, state,
// created_at, updated_at; session_id set from the argument). Every part
// here has created_at and updated_at of its own, so a swap of the two
// cells, or a session id the row would not give, differs from Scan's.
func TestDriverReadMatchesScanOnEveryPartColumn(t *testing.T) {
	s := benchStore(t, t.TempDir())
	ctx := context.Background()
	sess := windowSession(t, s, 30, 10)
	if _, err := s.db.ExecContext(ctx, `UPDATE parts SET created_at = created_at - rowid * 7,
		updated_at = updated_at + rowid * 11 WHERE session_id = ?`, sess.ID); err != nil {
		t.Fatal(err)
	}
	w, whole := windowAndHistory(t, s, sess.ID)
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

// windowAndHistory reads session id's whole history both ways, the window
// from its start (Window.Load, through the driver) and LoadHistory (Scan),
// and fails unless they have as many entries.
func windowAndHistory(t *testing.T, s *Store, id string) (w, whole []Entry) {
	t.Helper()
	ctx := context.Background()
	whole, err := s.LoadHistory(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if w, err = s.Window().Load(ctx, id, func([]Entry) string { return "" }); err != nil {
		t.Fatal(err)
	}
	if len(w) != len(whole) {
		t.Fatalf("window of %d entries, history of %d", len(w), len(whole))
	}
	return w, whole
}
