package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
)

// BenchmarkSessionsSearch searches 1,000 sessions (20 messages and 10 tool
// outputs of 1 KB each, 30,000 parts) as `agent sessions search --all`
// does, opening the database read-only each time: a phrase in one
// session, and a word in every message of every session.
func BenchmarkSessionsSearch(b *testing.B) {
	data, dir := b.TempDir(), b.TempDir()
	seedSessions(b, data, dir, 1000, 20, 1024)
	ctx := context.Background()
	st, err := storage.Open(ctx, data)
	if err != nil {
		b.Fatal(err)
	}
	list, _ := st.ListSessions(ctx, "")
	m := &message.Message{SessionID: list[500].ID, Role: message.RoleAssistant}
	if err := st.CreateMessage(ctx, m); err != nil {
		b.Fatal(err)
	}
	if err := st.UpsertPart(ctx, &message.Part{SessionID: m.SessionID, MessageID: m.ID, Type: message.PartText,
		Text: "the quasar flux inverter hums"}); err != nil {
		b.Fatal(err)
	}
	st.Close()
	cfg, err := config.Load(config.Flags{Model: "gpt-4.1", DataDir: data}, dir, func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	a := &app{cfg: cfg, dir: dir}
	for _, tc := range []struct{ name, query string }{{"phrase", "quasar flux inverter"}, {"everywhere", "conversation"}} {
		b.Run(tc.name, func(b *testing.B) {
			var durations []time.Duration
			for b.Loop() {
				start := time.Now()
				st, err := a.openReadOnly(ctx)
				if err != nil {
					b.Fatal(err)
				}
				found, err := st.SearchSessions(ctx, tc.query, "", searchSessionsLimit)
				st.Close()
				if err != nil || len(found) == 0 {
					b.Fatalf("%d sessions, %v", len(found), err)
				}
				durations = append(durations, time.Since(start))
			}
			slices.Sort(durations)
			b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds())/1e6, "p50-ms")
		})
	}
}
