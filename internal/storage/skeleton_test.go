package storage

import (
	"context"
	"reflect"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// markersIn counts the messages of a skeleton holding compaction parts.
func markersIn(skeleton []Entry) int {
	n := 0
	for _, e := range skeleton {
		for _, p := range e.Parts {
			if p.Type == message.PartCompaction {
				n++
				break
			}
		}
	}
	return n
}

// Window.Load hands its caller the skeleton of the newest compactions
// only (newestCompactions of them) when the answer lies inside it, and
// the whole skeleton, asking again, when the answer reaches before it,
// when a compaction before it was undone, or when a summary in it names
// no marker in it: the window read is what the whole skeleton says.
func TestSkeletonReadsTheNewestCompactions(t *testing.T) {
	s := benchStore(t, t.TempDir())
	ctx := context.Background()
	sess := windowSession(t, s, 95, 10) // 9 compactions
	whole, err := s.LoadHistory(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	load := func(answer func(skeleton []Entry) string) (seen []int, got []Entry) {
		t.Helper()
		got, err := s.Window().Load(ctx, sess.ID, func(skeleton []Entry) string {
			seen = append(seen, markersIn(skeleton))
			return answer(skeleton)
		})
		if err != nil {
			t.Fatal(err)
		}
		return seen, got
	}
	from := func(id string) []Entry {
		for i, e := range whole {
			if e.Message.ID >= id {
				return whole[i:]
			}
		}
		return nil
	}

	seen, got := load(lastMarker)
	if !reflect.DeepEqual(seen, []int{newestCompactions}) {
		t.Errorf("skeletons of %v compactions handed, want one of %d", seen, newestCompactions)
	}
	if want := from(lastMarker(whole)); !reflect.DeepEqual(got, want) {
		t.Errorf("window of %d entries, want %d", len(got), len(want))
	}

	var firstMarker string
	for _, e := range whole {
		if markersIn([]Entry{e}) > 0 {
			firstMarker = e.Message.ID
			break
		}
	}
	// Before the newest compactions: "" until the first marker is there.
	oldest := func(skeleton []Entry) string {
		if markersIn(skeleton) < 9 {
			return ""
		}
		return firstMarker
	}
	seen, got = load(oldest)
	if !reflect.DeepEqual(seen, []int{newestCompactions, 9}) {
		t.Errorf("answer before the newest compactions: skeletons of %v compactions, want %d then 9", seen, newestCompactions)
	}
	if want := from(firstMarker); !reflect.DeepEqual(got, want) {
		t.Errorf("window of %d entries, want %d", len(got), len(want))
	}

	// The first compaction undone: the whole skeleton, at once.
	if _, err := s.db.ExecContext(ctx, `UPDATE parts SET state = json_set(state, '$.compaction.undone_at', '2026-01-02T03:04:05Z')
		WHERE id = (SELECT min(id) FROM parts WHERE session_id = ? AND type = 'compaction')`, sess.ID); err != nil {
		t.Fatal(err)
	}
	if seen, _ = load(lastMarker); !reflect.DeepEqual(seen, []int{9}) {
		t.Errorf("a compaction undone before the newest: skeletons of %v compactions, want 9", seen)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE parts SET state = json_remove(state, '$.compaction.undone_at')
		WHERE session_id = ? AND type = 'compaction'`, sess.ID); err != nil {
		t.Fatal(err)
	}
	if seen, _ = load(lastMarker); !reflect.DeepEqual(seen, []int{newestCompactions}) {
		t.Errorf("no compaction undone: skeletons of %v compactions, want %d", seen, newestCompactions)
	}

	// The newest summary's marker names another summary: the whole skeleton.
	if _, err := s.db.ExecContext(ctx, `UPDATE parts SET state = json_set(state, '$.compaction.summary_id', 'elsewhere')
		WHERE id = (SELECT max(id) FROM parts WHERE session_id = ? AND type = 'compaction')`, sess.ID); err != nil {
		t.Fatal(err)
	}
	if seen, _ = load(lastMarker); !reflect.DeepEqual(seen, []int{9}) {
		t.Errorf("a summary without its marker: skeletons of %v compactions, want 9", seen)
	}
}
