package storage

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// variedOutput is a tool output of 1–2.6 KB whose lines name different
// files and numbers, as real listings and logs do: harder on the index than
// one line repeated.
func variedOutput(i, j int) string {
	var b strings.Builder
	for k := 0; b.Len() < 1000+(i*j*97)%1600; k++ {
		fmt.Fprintf(&b, "ok  \tgithub.com/acme/svc%d/internal/pkg%d_%d\t%d.%03ds coverage %d%%\n", i%37, j, k, k%9, (i*k)%1000, (i+k)%100)
	}
	return b.String()
}

// BenchmarkHistoryIndexSize stores the 10,000-part session of
// BenchmarkSessionOpen, with and without the history index, and reports
// how much larger agent.db is with it (index-x: 1.10 = 10% more), for the
// repeated listing and for varied outputs.
func BenchmarkHistoryIndexSize(b *testing.B) {
	for _, tc := range []struct {
		name   string
		varied func(i, j int) string
	}{{"listing", nil}, {"varied", variedOutput}} {
		b.Run(tc.name, func(b *testing.B) {
			var ratio float64
			for b.Loop() {
				size := func(index bool) int64 {
					indexWrites = index
					defer func() { indexWrites = true }()
					dir := b.TempDir()
					s, err := Open(context.Background(), dir)
					if err != nil {
						b.Fatal(err)
					}
					defer s.Close()
					largeSessionWith(b, s, tc.varied)
					if _, err := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
						b.Fatal(err)
					}
					return fileSize(b, filepath.Join(dir, DBName))
				}
				without, with := size(false), size(true)
				ratio = float64(with) / float64(without)
				b.Logf("%s: %.1f MB without the index, %.1f MB with", tc.name, float64(without)/1e6, float64(with)/1e6)
			}
			b.ReportMetric(ratio, "index-x")
		})
	}
}

// BenchmarkPartUpsertFinished stores finished tool calls (2 KB outputs),
// the writes that are indexed, with and without the index.
func BenchmarkPartUpsertFinished(b *testing.B) {
	for _, index := range []bool{false, true} {
		b.Run(fmt.Sprintf("index=%v", index), func(b *testing.B) {
			indexWrites = index
			defer func() { indexWrites = true }()
			ctx := context.Background()
			s := benchStore(b, b.TempDir())
			drainEvents(b, s)
			sess, m := benchSession(b, s)
			var durations []time.Duration
			i := 0
			for b.Loop() {
				i++
				p := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartTool, Tool: &message.ToolState{
					CallID: fmt.Sprintf("call_%d", i), Name: "bash", Status: message.ToolCompleted,
					Input: `{"command":"go test ./..."}`, Output: variedOutput(i, 5),
				}}
				start := time.Now()
				if err := s.UpsertPart(ctx, p); err != nil {
					b.Fatal(err)
				}
				durations = append(durations, time.Since(start))
			}
			slices.Sort(durations)
			b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds())/1e3, "p50-µs")
		})
	}
}

// BenchmarkSearchSession searches the 10,000-part session for a rare word
// (one part), a common one (every tool output) and three words.
func BenchmarkSearchSession(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, b.TempDir())
	sess, _ := largeSessionWith(b, s, variedOutput)
	m := &message.Message{SessionID: sess.ID, Role: message.RoleAssistant}
	if err := s.CreateMessage(ctx, m); err != nil {
		b.Fatal(err)
	}
	if err := s.UpsertPart(ctx, &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartText,
		Text: "the flaky test is TestRecallMarker_qz81"}); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{"TestRecallMarker_qz81", "coverage", "svc3 internal coverage"} {
		b.Run(strings.Fields(q)[0], func(b *testing.B) {
			var durations []time.Duration
			for b.Loop() {
				start := time.Now()
				hits, err := s.SearchSession(ctx, sess.ID, q, 10)
				if err != nil || len(hits) == 0 {
					b.Fatalf("%d hits, %v", len(hits), err)
				}
				durations = append(durations, time.Since(start))
			}
			slices.Sort(durations)
			b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds())/1e6, "p50-ms")
		})
	}
}
