package storage

import (
	"context"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// BenchmarkResumeClaim is what a resumed session's Open does before it
// reads its window, on a session closed cleanly: "two-step" is
// AcquireLease, the unfinished tools read and RepairSession (the path before
// AcquireRepaired), "one-tx" AcquireRepaired; each lease released after.
// It reports CPU time a claim (cpu-ms/op) beside wall time.
func BenchmarkResumeClaim(b *testing.B) {
	ctx := context.Background()
	s := benchStore(b, b.TempDir())
	sess := &message.Session{Title: "t", Model: "m", Dir: "/w"}
	if err := s.CreateSession(ctx, sess); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"two-step", "one-tx"} {
		b.Run(mode, func(b *testing.B) {
			cpu := processCPU()
			for b.Loop() {
				if mode == "two-step" {
					l, err := s.AcquireLease(ctx, sess.ID)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := unfinishedTools(ctx, s.rdb, sess.ID); err != nil {
						b.Fatal(err)
					}
					if _, err := s.RepairSession(ctx, sess.ID); err != nil {
						b.Fatal(err)
					}
					l.Release()
					continue
				}
				l, _, _, err := s.AcquireRepaired(ctx, sess.ID)
				if err != nil {
					b.Fatal(err)
				}
				l.Release()
			}
			b.ReportMetric(float64((processCPU()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
