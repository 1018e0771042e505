package storage

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// BenchmarkCountColumn is what a stored per-message token count would
// cost to read at open (issue 36, tokcount): the messages of a resumed
// window (290, as BenchmarkResumeRun's 10,000-part session sends) read
// with two columns (id and output_tokens: the row itself is read, as
// Window.Load reads it), and with one more INTEGER column (input_tokens,
// standing in for a count column). The difference is the price of the column,
// against which the calculator's walk it would replace is measured
// (cmd/agent BenchmarkResumeCalculatorShare).
func BenchmarkCountColumn(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, b.TempDir())
	sess := &message.Session{Title: "bench", Dir: "/w"}
	if err := s.CreateSession(ctx, sess); err != nil {
		b.Fatal(err)
	}
	var in []message.Entry
	for i := range 290 {
		in = append(in, message.Entry{
			Message: message.Message{ID: message.NewID(), Role: message.RoleUser},
			Parts:   []message.Part{{Type: message.PartText, Text: fmt.Sprintf("question %d", i)}},
		})
	}
	if err := s.ImportHistory(ctx, sess.ID, in); err != nil {
		b.Fatal(err)
	}
	// The two queries alternate, each timed on its own, so that the
	// machine's load falls on both alike; the medians are reported.
	read := func(query string, withCount bool) time.Duration {
		t0 := time.Now()
		rows, err := s.rdb.QueryContext(ctx, query, sess.ID)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var id string
			var out, count int64
			dest := []any{&id, &out}
			if withCount {
				dest = append(dest, &count)
			}
			if err := rows.Scan(dest...); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if err := rows.Close(); err != nil {
			b.Fatal(err)
		}
		if n != 290 {
			b.Fatalf("read %d rows", n)
		}
		return time.Since(t0)
	}
	const q = "FROM messages WHERE session_id = ? ORDER BY id"
	var ids, counts []time.Duration
	for b.Loop() {
		ids = append(ids, read("SELECT id, output_tokens "+q, false))
		counts = append(counts, read("SELECT id, output_tokens, input_tokens "+q, true))
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds()) / 1e3
	}
	mi, mc := median(ids), median(counts)
	b.ReportMetric(mi, "id-us")
	b.ReportMetric(mc, "id+count-us")
	b.ReportMetric(mc-mi, "column-us")
}
