package storage

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// deltaRows returns the text of each delta row of a part, in order.
func deltaRows(t *testing.T, s *Store, partID string) []string {
	t.Helper()
	rows, err := s.rdb.Query(`SELECT text FROM part_deltas WHERE part_id = ? ORDER BY seq`, partID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var texts []string
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, text)
	}
	return texts
}

// storedText returns the part's text as readers see it (part + deltas).
func storedText(t *testing.T, s *Store, sessionID, partID string) string {
	t.Helper()
	parts, err := s.ListParts(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if p.ID == partID {
			return p.Text
		}
	}
	t.Fatalf("part %s not found", partID)
	return ""
}

func newStream(t *testing.T, s *Store) (*TextStream, *message.Session) {
	t.Helper()
	sess, m := newSession(t, s, "/w")
	stream, err := s.NewTextStream(context.Background(), &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartText})
	if err != nil {
		t.Fatal(err)
	}
	return stream, sess
}

func TestTextStreamFlushesOnTimer(t *testing.T) {
	s := openTest(t)
	stream, sess := newStream(t, s)
	id := stream.Part().ID

	start := time.Now()
	stream.Append("hello ")
	stream.Append("world")
	// No Flush, no further Append: only the timer can persist the text.
	deadline := time.Now().Add(5 * time.Second)
	for storedText(t, s, sess.ID, id) != "hello world" {
		if time.Now().After(deadline) {
			t.Fatal("text not flushed by the timer within 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	if elapsed < FlushInterval/2 {
		t.Errorf("flushed after %v: the timer should batch deltas for about %v", elapsed, FlushInterval)
	}
	if rows := deltaRows(t, s, id); len(rows) != 1 {
		t.Errorf("two deltas within one interval made %d rows, want 1", len(rows))
	}
	// The timer re-arms for the next delta.
	stream.Append("!")
	for storedText(t, s, sess.ID, id) != "hello world!" {
		if time.Now().After(deadline) {
			t.Fatal("second delta not flushed by the timer")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := stream.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestTextStreamWritesEachDeltaOnce(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	stream, sess := newStream(t, s)
	id := stream.Part().ID

	batches := [][]string{{"a", "b", "c"}, {"de"}, {}, {"f", "g"}}
	var want []string
	for _, batch := range batches {
		for _, d := range batch {
			stream.Append(d)
		}
		if err := stream.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if len(batch) > 0 {
			want = append(want, strings.Join(batch, ""))
		}
	}
	if got := deltaRows(t, s, id); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("delta rows %q, want %q (each flush writes only new bytes)", got, want)
	}
	if got := storedText(t, s, sess.ID, id); got != "abcdefg" {
		t.Errorf("readers see %q", got)
	}
	if _, err := stream.Finish(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestTextStreamFinish(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := watch(t, s)
	stream, sess := newStream(t, s)
	id := stream.Part().ID
	w.next(t, func(ev message.Event) bool { return ev.Type == message.EventPartUpdated && ev.Part.ID == id })

	stream.Append("one ")
	ev := w.next(t, ofType(message.EventPartDelta))
	if ev.Delta != "one " || ev.Part.Text != "one " || ev.Part.ID != id {
		t.Errorf("delta event = %q / %q", ev.Delta, ev.Part.Text)
	}
	if err := stream.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	stream.Append("two")
	ev = w.next(t, ofType(message.EventPartDelta))
	if ev.Delta != "two" || ev.Part.Text != "one two" {
		t.Errorf("delta event = %q / %q", ev.Delta, ev.Part.Text)
	}

	final, err := stream.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if final.Text != "one two" || final.ID != id {
		t.Errorf("Finish returned %+v", final)
	}
	if ev := w.next(t, ofType(message.EventPartUpdated)); ev.Part.Text != "one two" {
		t.Errorf("finish event text %q", ev.Part.Text)
	}
	if rows := deltaRows(t, s, id); len(rows) != 0 {
		t.Errorf("delta rows left after Finish: %q", rows)
	}
	var state string
	if err := s.rdb.QueryRow(`SELECT state FROM parts WHERE id = ?`, id).Scan(&state); err != nil {
		t.Fatal(err)
	}
	if state != `{"text":"one two"}` {
		t.Errorf("stored state %s", state)
	}
	stream.Append(" three") // ignored
	if again, err := stream.Finish(ctx); err != nil || again.Text != "one two" {
		t.Errorf("second Finish = %q, %v", again.Text, err)
	}
	if got := storedText(t, s, sess.ID, id); got != "one two" {
		t.Errorf("after finish readers see %q", got)
	}
	s.mu.Lock()
	open := len(s.streams)
	s.mu.Unlock()
	if open != 0 {
		t.Errorf("%d streams still registered after Finish", open)
	}
}

func TestTextStreamOnlyForText(t *testing.T) {
	s := openTest(t)
	_, m := newSession(t, s, "/w")
	_, err := s.NewTextStream(context.Background(), &message.Part{SessionID: m.SessionID, MessageID: m.ID, Type: message.PartTool})
	if err == nil {
		t.Fatal("a stream on a tool part was accepted")
	}
}

func TestCloseFlushesOpenStreams(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	stream, sess := newStream(t, s)
	id := stream.Part().ID
	stream.Append("kept on close")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openAt(t, dir)
	if got := storedText(t, s, sess.ID, id); got != "kept on close" {
		t.Errorf("after Close readers see %q", got)
	}
}
