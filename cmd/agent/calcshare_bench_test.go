package main

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
)

// BenchmarkResumeCalculatorShare measures, in process, on the session
// BenchmarkResumeRun resumes (10,000 parts, seedLongSession), what the
// calculator costs at open against reading the window it restores from:
// "window" is storage.Window.Load of what the request sends, "restore"
// tokens.Restore of that window (anchored on its newest step, as a
// resumed run is), "restore-estimated" the same after a compaction (every
// visible entry priced), and "price" the pricing walk alone
// (tokens.EstimateEntries of VisibleHistory's entries; "price-walk" of
// entries split beforehand, the counting alone): the most that stored
// per-message token counts could save, against what reading a count
// column would cost (storage BenchmarkCountColumn). Each reports its CPU (user +
// system) per operation as cpu-us.
func BenchmarkResumeCalculatorShare(b *testing.B) {
	ctx := context.Background()
	home := b.TempDir()
	data := filepath.Join(home, "data")
	work := filepath.Join(home, "work")
	seedLongSession(b, data, work, 10_000)
	st, err := storage.Open(ctx, data)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	sess, err := st.LatestSession(ctx, work)
	if err != nil || sess == nil {
		b.Fatalf("no session: %v", err)
	}
	load := func() []message.Entry {
		h, err := st.Window().Load(ctx, sess.ID, tokens.SentFrom)
		if err != nil {
			b.Fatal(err)
		}
		return h
	}
	window := load()
	estimated := append(window[:len(window):len(window)], message.Entry{
		Message: message.Message{ID: message.NewID(), Role: message.RoleUser},
		Parts:   []message.Part{{Type: message.PartCompaction, Compaction: &message.CompactionState{Auto: true}}},
	})
	visible := tokens.VisibleHistory(window).Entries()
	opt := tokens.Options{Window: 128000, MaxOutput: 16000}
	parts := 0
	for _, e := range window {
		parts += len(e.Parts)
	}
	cases := []struct {
		name string
		fn   func()
	}{
		{"window", func() { load() }},
		{"restore", func() { tokens.Restore(opt, tokens.Chars{}, 3000, 6000, window) }},
		{"restore-estimated", func() { tokens.Restore(opt, tokens.Chars{}, 3000, 6000, estimated) }},
		{"price", func() { tokens.EstimateEntries(tokens.VisibleHistory(window).Entries(), tokens.Chars{}) }},
		{"price-walk", func() { tokens.EstimateEntries(visible, tokens.Chars{}) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			c.fn()
			before := cpuNow()
			b.ResetTimer()
			for b.Loop() {
				c.fn()
			}
			b.StopTimer()
			b.ReportMetric(float64((cpuNow()-before).Microseconds())/float64(b.N), "cpu-us")
			b.ReportMetric(float64(parts), "parts")
		})
	}
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
