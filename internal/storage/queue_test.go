package storage

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

func queueTexts(q []message.QueuedMessage) string {
	var texts []string
	for i, m := range q {
		if m.Position != i {
			return "bad position " + m.Text
		}
		texts = append(texts, m.Text)
	}
	return strings.Join(texts, ",")
}

func TestQueueOperations(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, _ := newSession(t, s, "/w")
	w := watch(t, s)

	ids := map[string]string{}
	for _, text := range []string{"a", "b", "c", "d"} {
		q, err := s.Enqueue(ctx, sess.ID, text)
		if err != nil {
			t.Fatal(err)
		}
		ids[text] = q.ID
	}
	steps := []struct {
		name string
		do   func() error
		want string
	}{
		{"enqueued", func() error { return nil }, "a,b,c,d"},
		{"move last to front", func() error { return s.MoveQueued(ctx, ids["d"], 0) }, "d,a,b,c"},
		{"move first to end (clamped)", func() error { return s.MoveQueued(ctx, ids["d"], 99) }, "a,b,c,d"},
		{"move to middle", func() error { return s.MoveQueued(ctx, ids["a"], 2) }, "b,c,a,d"},
		{"edit", func() error { return s.UpdateQueued(ctx, ids["c"], "C") }, "b,C,a,d"},
		{"remove middle", func() error { return s.RemoveQueued(ctx, ids["c"]) }, "b,a,d"},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		q, err := s.ListQueue(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := queueTexts(q); got != st.want {
			t.Errorf("%s: queue %s, want %s", st.name, got, st.want)
		}
	}
	// Every change announced the whole queue; the last one is after the removal.
	var last message.Event
	for range 4 + len(steps) - 1 {
		last = w.next(t, ofType(message.EventQueueChanged))
	}
	if got := queueTexts(last.Queue); got != "b,a,d" || last.SessionID != sess.ID {
		t.Errorf("last queue event %s (session %s), want b,a,d", got, last.SessionID)
	}

	taken, err := s.TakeQueue(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := queueTexts(taken); got != "b,a,d" {
		t.Errorf("TakeQueue = %s", got)
	}
	if ev := w.next(t, ofType(message.EventQueueChanged)); len(ev.Queue) != 0 {
		t.Errorf("queue event after TakeQueue holds %d", len(ev.Queue))
	}
	if q, _ := s.ListQueue(ctx, sess.ID); len(q) != 0 {
		t.Errorf("queue not empty after TakeQueue: %v", q)
	}
	if again, err := s.TakeQueue(ctx, sess.ID); err != nil || len(again) != 0 {
		t.Errorf("second TakeQueue = %v, %v", again, err)
	}

	for name, err := range map[string]error{
		"update": s.UpdateQueued(ctx, "NOPE", "x"),
		"remove": s.RemoveQueued(ctx, "NOPE"),
		"move":   s.MoveQueued(ctx, "NOPE", 0),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s of a missing message: %v", name, err)
		}
	}
	if _, err := s.Enqueue(ctx, "NOPE", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("enqueue in a missing session: %v", err)
	}
}

func TestTakeQueueIsAtomic(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, _ := newSession(t, s, "/w")
	const writers, each = 2, 15
	var wg sync.WaitGroup
	var mu sync.Mutex
	var taken []message.QueuedMessage
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if _, err := s.Enqueue(ctx, sess.ID, string(rune('a'+w))+string(rune('0'+i%10))); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Go(func() {
		for range 10 {
			got, err := s.TakeQueue(ctx, sess.ID)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			taken = append(taken, got...)
			mu.Unlock()
		}
	})
	wg.Wait()
	rest, err := s.TakeQueue(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	taken = append(taken, rest...)
	seen := map[string]bool{}
	for _, q := range taken {
		if seen[q.ID] {
			t.Fatalf("message %s taken twice", q.ID)
		}
		seen[q.ID] = true
	}
	if len(seen) != writers*each {
		t.Errorf("took %d messages, want %d: none lost, none twice", len(seen), writers*each)
	}
}

func TestMoveQueued(t *testing.T) {
	q := func(ids ...string) []message.QueuedMessage {
		var out []message.QueuedMessage
		for _, id := range ids {
			out = append(out, message.QueuedMessage{ID: id})
		}
		return out
	}
	ids := func(q []message.QueuedMessage) []string {
		var out []string
		for _, m := range q {
			out = append(out, m.ID)
		}
		return out
	}
	tests := []struct {
		id   string
		pos  int
		want []string
	}{
		{"a", 0, []string{"a", "b", "c"}},
		{"a", 1, []string{"b", "a", "c"}},
		{"c", -5, []string{"c", "a", "b"}},
		{"b", 2, []string{"a", "c", "b"}},
		{"x", 0, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		if got := ids(moveQueued(q("a", "b", "c"), tt.id, tt.pos)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("move %s to %d = %v, want %v", tt.id, tt.pos, got, tt.want)
		}
	}
}

// TestRunnerQueueReadsOpenNoReader checks that the runner's reads of its
// own session's queue (ListQueueLatest) go through the writing connection:
// a one-step `agent run` then never opens a reading connection, each of
// which costs a file open and a parse of the whole schema. It sees what
// another connection committed, as ListQueue does.
func TestRunnerQueueReadsOpenNoReader(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openAt(t, dir)
	sess, _ := newSession(t, s, "/w")
	if q, err := s.ListQueueLatest(ctx, sess.ID); err != nil || len(q) != 0 {
		t.Fatalf("ListQueueLatest = %v, %v", q, err)
	}
	if n := s.rdb.Stats().OpenConnections; n != 0 {
		t.Errorf("%d reading connections opened", n)
	}
	other, err := Open(ctx, dir) // another process steering the session
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.EnqueueKind(ctx, sess.ID, "steer", message.KindSteer); err != nil {
		t.Fatal(err)
	}
	other.Close()
	q, err := s.ListQueueLatest(ctx, sess.ID)
	if err != nil || len(q) != 1 || q[0].Text != "steer" {
		t.Fatalf("after another store queued: %v, %v", q, err)
	}
	want, _ := s.ListQueue(ctx, sess.ID)
	if len(want) != 1 || !reflect.DeepEqual(want[0], q[0]) {
		t.Errorf("ListQueue %v, ListQueueLatest %v", want, q)
	}
}
