package tokens

import (
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// BenchmarkRestoreWindow is the calculator's cost at open for the window
// a resumed 10,000-part session reads (≈ 700 parts after its summary):
// anchored on the newest step (the common case) and in estimated basis
// (a compaction after the last step: every visible part estimated). It
// is what stored per-message counts could save at open.
func BenchmarkRestoreWindow(b *testing.B) {
	for _, basis := range []string{"anchored", "estimated"} {
		b.Run(basis, func(b *testing.B) {
			history := realisticHistory(700)
			if basis == "estimated" {
				history = append(history, message.Entry{
					Message: message.Message{ID: "zzzz", Role: message.RoleUser},
					Parts:   []message.Part{compactionPart(message.CompactionState{Auto: true})},
				})
			}
			b.ReportAllocs()
			for b.Loop() {
				c := Restore(Options{Window: 200000, ReasoningRoundtrip: true}, Chars{}, 3000, 6000, history)
				if c.Reading().Total == 0 {
					b.Fatal("nothing counted")
				}
			}
			b.ReportMetric(float64(countParts(history)), "parts")
		})
	}
}
