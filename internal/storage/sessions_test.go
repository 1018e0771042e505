package storage

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

func TestSessionCRUD(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := watch(t, s)

	sess := &message.Session{Title: "first", Model: "gpt", Dir: "/proj"}
	if err := s.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if sess.ID == "" || sess.CreatedAt.IsZero() || !sess.UpdatedAt.Equal(sess.CreatedAt) {
		t.Fatalf("CreateSession did not fill id and times: %+v", sess)
	}
	ev := w.next(t, ofType(message.EventSessionUpdated))
	if ev.SessionID != sess.ID || ev.Session.Title != "first" {
		t.Errorf("event = %+v", ev)
	}

	got, err := s.GetSession(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "first" || got.Model != "gpt" || got.Dir != "/proj" || !got.CreatedAt.Equal(sess.CreatedAt) {
		t.Errorf("GetSession = %+v", got)
	}

	sess.Title, sess.Model = "renamed", "other"
	if err := s.UpdateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if ev := w.next(t, ofType(message.EventSessionUpdated)); ev.Session.Title != "renamed" {
		t.Errorf("update event = %+v", ev.Session)
	}
	if err := s.AddSessionUsage(ctx, sess.ID, message.Usage{Input: 100, Output: 10, CachedInput: 40}, 0.5); err != nil {
		t.Fatal(err)
	}
	if err := s.AddSessionUsage(ctx, sess.ID, message.Usage{Input: 200, Output: 20, Reasoning: 5}, 0.25); err != nil {
		t.Fatal(err)
	}
	ev = w.next(t, func(ev message.Event) bool {
		return ev.Type == message.EventSessionUpdated && ev.Session.Usage.Input == 300
	})
	got, err = s.GetSession(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantUsage := message.Usage{Input: 300, Output: 30, Reasoning: 5, CachedInput: 40}
	if got.Title != "renamed" || got.Model != "other" || got.Usage != wantUsage || got.CostUSD != 0.75 {
		t.Errorf("after updates: %+v", got)
	}
	if ev.Session.Usage != wantUsage {
		t.Errorf("usage event carries %+v", ev.Session.Usage)
	}

	for _, err := range []error{
		s.UpdateSession(ctx, &message.Session{ID: "NOPE"}),
		s.AddSessionUsage(ctx, "NOPE", message.Usage{}, 0),
		s.DeleteSession(ctx, "NOPE"),
	} {
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "NOPE") {
			t.Errorf("missing session: %v, want ErrNotFound naming it", err)
		}
	}
}

func TestGetSessionByPrefix(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ids := []string{"01AAAAAAAA000000000000000A", "01AAAAAAAA000000000000000B", "01BBBBBBBB000000000000000C"}
	for _, id := range ids {
		if err := s.CreateSession(ctx, &message.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		query   string
		want    string
		wantErr error
	}{
		{query: ids[0], want: ids[0]},
		{query: "01BBBB", want: ids[2]},
		{query: "01bbbbbbbb", want: ids[2]},
		{query: "01AAAAAAAA000000000000000B", want: ids[1]},
		{query: "01AAAA", wantErr: ErrAmbiguousID},
		{query: "01BBB", wantErr: ErrNotFound}, // too short for a prefix
		{query: "01CCCC", wantErr: ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got, err := s.GetSession(ctx, tt.query)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || got.ID != tt.want {
				t.Fatalf("got %v, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestListSessionsNewestFirst(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	base := time.Unix(1_700_000_000, 0)
	create := func(title, dir string, age time.Duration) *message.Session {
		sess := &message.Session{Title: title, Dir: dir, CreatedAt: base, UpdatedAt: base.Add(-age)}
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		return sess
	}
	create("old-a", "/a", 3*time.Hour)
	create("new-a", "/a", time.Hour)
	create("mid-b", "/b", 2*time.Hour)

	tests := []struct {
		dir  string
		want []string
	}{
		{"", []string{"new-a", "mid-b", "old-a"}},
		{"/a", []string{"new-a", "old-a"}},
		{"/c", nil},
	}
	for _, tt := range tests {
		list, err := s.ListSessions(ctx, tt.dir)
		if err != nil {
			t.Fatal(err)
		}
		var titles []string
		for _, sess := range list {
			titles = append(titles, sess.Title)
		}
		if strings.Join(titles, ",") != strings.Join(tt.want, ",") {
			t.Errorf("ListSessions(%q) = %v, want %v", tt.dir, titles, tt.want)
		}
		latest, err := s.LatestSession(ctx, tt.dir)
		if len(tt.want) == 0 {
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("LatestSession(%q) error %v, want ErrNotFound", tt.dir, err)
			}
			continue
		}
		if err != nil || latest.Title != tt.want[0] {
			t.Errorf("LatestSession(%q) = %v, %v", tt.dir, latest, err)
		}
	}

	// A new message makes its session the latest.
	list, _ := s.ListSessions(ctx, "/b")
	if err := s.CreateMessage(ctx, &message.Message{SessionID: list[0].ID, Role: message.RoleUser}); err != nil {
		t.Fatal(err)
	}
	if latest, err := s.LatestSession(ctx, ""); err != nil || latest.Title != "mid-b" {
		t.Errorf("after a message, latest = %v, %v; want mid-b", latest, err)
	}
}

func TestDeleteSessionCascades(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	keep, keepMsg := newSession(t, s, "/w")
	sess, m := newSession(t, s, "/w")
	for _, id := range []string{keep.ID, sess.ID} {
		msg := keepMsg
		if id == sess.ID {
			msg = m
		}
		if err := s.UpsertPart(ctx, &message.Part{SessionID: id, MessageID: msg.ID, Type: message.PartText, Text: "x"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Enqueue(ctx, id, "later"); err != nil {
			t.Fatal(err)
		}
		if err := s.LogEvent(ctx, id, "prune", nil); err != nil {
			t.Fatal(err)
		}
	}
	stream, err := s.NewTextStream(ctx, &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartText})
	if err != nil {
		t.Fatal(err)
	}
	stream.Append("delta")
	if err := stream.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	lease, err := s.AcquireLease(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release()

	w := watch(t, s)
	if err := s.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if ev := w.next(t, ofType(message.EventSessionDeleted)); ev.SessionID != sess.ID {
		t.Errorf("delete event for %s", ev.SessionID)
	}
	for _, table := range []string{"messages", "parts", "part_deltas", "queue", "leases", "event_log"} {
		var n int
		if err := s.db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		want := 1 // what the kept session owns
		if table == "part_deltas" || table == "leases" {
			want = 0
		}
		if n != want {
			t.Errorf("%s has %d rows after delete, want %d", table, n, want)
		}
	}
	if _, err := s.GetSession(ctx, sess.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted session still found: %v", err)
	}
}

func TestSessionStats(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	sess, m := newSession(t, s, "/w")
	summary := &message.Message{SessionID: sess.ID, Role: message.RoleAssistant, Summary: true}
	if err := s.CreateMessage(ctx, summary); err != nil {
		t.Fatal(err)
	}
	tool := func(truncated bool) *message.Part {
		p := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartTool,
			Tool: &message.ToolState{CallID: "c", Name: "bash", Status: message.ToolCompleted, Truncated: truncated}}
		if err := s.UpsertPart(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, _, _ := tool(false), tool(true), tool(true)
	if err := s.UpsertPart(ctx, &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartText, Text: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkCompacted(ctx, []string{a.ID}, time.Now()); err != nil {
		t.Fatal(err)
	}
	st, err := s.SessionStats(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := SessionStats{Messages: 2, Parts: 4, CompactedParts: 1, TruncatedParts: 2, Summaries: 1}
	if st != want {
		t.Errorf("SessionStats = %+v, want %+v", st, want)
	}
	if _, err := s.SessionStats(ctx, "NOPE"); !errors.Is(err, ErrNotFound) {
		t.Errorf("stats of a missing session: %v", err)
	}
}

func TestMessageCounts(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	mk := func(dir string, n int) string {
		sess := &message.Session{Dir: dir}
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if err := s.CreateMessage(ctx, &message.Message{SessionID: sess.ID, Role: message.RoleUser}); err != nil {
				t.Fatal(err)
			}
		}
		return sess.ID
	}
	a, b, c, empty := mk("/a", 3), mk("/a", 1), mk("/b", 2), mk("/a", 0)
	got, err := s.MessageCounts(ctx, "/a")
	if err != nil {
		t.Fatal(err)
	}
	if got[a] != 3 || got[b] != 1 || got[c] != 0 || got[empty] != 0 || len(got) != 2 {
		t.Errorf("counts for /a = %v", got)
	}
	all, _ := s.MessageCounts(ctx, "")
	if all[c] != 2 || len(all) != 3 {
		t.Errorf("counts for all = %v", all)
	}
}
