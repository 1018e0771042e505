package storage

import (
	"context"
	"math/rand"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// TestLatestEventLogKindIsTheLastListed: after every event logged, in two
// sessions, of kinds written often, rarely and once, each kind's
// LatestEventLogKind is the last entry ListEventLogKind lists (or none
// when it lists none), differentially.
func TestLatestEventLogKindIsTheLastListed(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, t.TempDir())
	defer s.Close()
	a, _ := newSession(t, s, "/a")
	b, _ := newSession(t, s, "/b")
	kinds := []string{"estimate", "estimate", "estimate", "system_tokens", "cache_boundary", "system_git", "once"}
	rng := rand.New(rand.NewSource(36))
	check := func(sessionID string) {
		t.Helper()
		for _, kind := range append(kinds[2:], "absent") {
			list, err := s.ListEventLogKind(ctx, sessionID, kind)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := s.LatestEventLogKind(ctx, sessionID, kind)
			if err != nil {
				t.Fatal(err)
			}
			if ok != (len(list) > 0) {
				t.Fatalf("%s: ok = %v with %d listed", kind, ok, len(list))
			}
			if !ok {
				continue
			}
			want := list[len(list)-1]
			if got.ID != want.ID || string(got.Data) != string(want.Data) || got.Kind != kind || !got.At.Equal(want.At) {
				t.Fatalf("%s: latest = %+v, want %+v", kind, got, want)
			}
		}
	}
	for i := range 120 {
		sess := a
		if rng.Intn(3) == 0 {
			sess = b
		}
		kind := kinds[rng.Intn(len(kinds))]
		if kind == "once" && i > 3 {
			kind = "estimate" // a kind written only near the start
		}
		if err := s.LogEvent(ctx, sess.ID, kind, map[string]int{"n": i}); err != nil {
			t.Fatal(err)
		}
		if i%7 == 0 {
			check(a.ID)
			check(b.ID)
		}
	}
	check(a.ID)
	check(b.ID)
	if _, ok, err := s.LatestEventLogKind(ctx, message.NewID(), "estimate"); ok || err != nil {
		t.Errorf("no session: ok %v, err %v; want neither", ok, err)
	}
}

// BenchmarkLatestEventLogKind reads what Open reads of a long session's
// log (3,000 events: an estimate a request, and a system count and the
// start's git status recorded a run, every 20 requests) the old way ("list": every row of the kind, the
// last kept) and LatestEventLogKind's.
func BenchmarkLatestEventLogKind(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, b.TempDir())
	sess := &message.Session{Title: "t", Model: "m", Dir: "/w"}
	if err := s.CreateSession(ctx, sess); err != nil {
		b.Fatal(err)
	}
	var events []Event
	for i := range 3000 {
		events = append(events, Event{Kind: "estimate", Data: map[string]int{"tokens": i}})
		if i%20 == 0 {
			events = append(events, Event{Kind: "system_tokens", Data: map[string]int{"tokens": i}},
				Event{Kind: "system_git", Data: map[string]string{"status": "M a.go"}})
		}
	}
	if err := s.LogEvents(ctx, sess.ID, events...); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"list", "latest"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				for _, kind := range []string{"system_tokens", "system_git"} {
					if mode == "list" {
						if l, err := s.ListEventLogKind(ctx, sess.ID, kind); err != nil || len(l) == 0 {
							b.Fatal(kind, err)
						}
					} else if _, ok, err := s.LatestEventLogKind(ctx, sess.ID, kind); err != nil || !ok {
						b.Fatal(kind, err)
					}
				}
			}
		})
	}
}
