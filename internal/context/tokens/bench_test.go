package tokens

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// sample10KB returns 10 KB of real Go source (from GOROOT), the kind of
// text tool outputs carry.
func sample10KB(b *testing.B) string {
	data, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "strings", "strings.go"))
	if err != nil {
		b.Skipf("no Go source to sample: %v", err)
	}
	s := string(data)
	for len(s) < 10240 {
		s += s
	}
	return s[:10240]
}

// BenchmarkCalculatorSnapshot reads a snapshot of a session that has had
// 10,000 parts added since its last call: the cost does not depend on them.
func BenchmarkCalculatorSnapshot(b *testing.B) {
	c := NewCalculator(Options{Window: 200000, MaxOutput: 32000}, Chars{})
	c.SetFixed(3000, 6000)
	c.Observe(message.Usage{Input: 50000, Output: 500, Reasoning: 100, CachedInput: 40000}, 0)
	for i := range 10000 {
		c.AddText(fmt.Sprintf("tool output %d: %s", i, strings.Repeat("x", i%700)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	var s Reading
	for b.Loop() {
		s = c.Reading()
	}
	if s.Total <= 50400 {
		b.Fatalf("Total = %d", s.Total)
	}
}

// realisticHistory builds a session of parts: user turns, assistant steps
// with text and tool calls whose outputs vary from a line to 20 KB.
func realisticHistory(parts int) []message.Entry {
	var b builder
	sizes := []int{60, 400, 1500, 4000, 12000, 20000, 250}
	for i := 0; len(b.entries) == 0 || countParts(b.entries) < parts; i++ {
		if i%5 == 0 {
			b.user(fmt.Sprintf("please look at file %d and fix the bug", i))
			continue
		}
		b.msg(message.RoleAssistant,
			textPart("Let me check that."),
			toolPart(fmt.Sprintf("call_%d", i), `{"command":"cat file.go"}`, strings.Repeat("y", sizes[i%len(sizes)])),
			stepPart(message.Usage{Input: int64(1000 + i), Output: 50}, 0))
	}
	return b.entries
}

func countParts(entries []message.Entry) int {
	n := 0
	for _, e := range entries {
		n += len(e.Parts)
	}
	return n
}

// BenchmarkRestore rebuilds a calculator from 10,000 stored parts, in
// estimated basis (the worst case: every visible part is estimated).
func BenchmarkRestore(b *testing.B) {
	history := realisticHistory(10000)
	// A compaction after the last step forces the estimated basis.
	history = append(history, message.Entry{
		Message: message.Message{ID: "zzzz", Role: message.RoleUser},
		Parts:   []message.Part{compactionPart(message.CompactionState{Auto: true})},
	})
	b.ReportAllocs()
	for b.Loop() {
		c := Restore(Options{Window: 200000}, Chars{}, 3000, 6000, history)
		if c.Reading().Basis != BasisEstimated {
			b.Fatal("not estimated")
		}
	}
	b.ReportMetric(float64(countParts(history)), "parts")
}

// BenchmarkEstimatorCount counts 10 KB of Go source with chars/4 and with
// the o200k_base tokenizer (tables loaded before the timer starts).
func BenchmarkEstimatorCount(b *testing.B) {
	text := sample10KB(b)
	for _, tt := range []struct {
		name string
		est  Estimator
	}{
		{"chars4", Chars{}},
		{"o200k", NewEstimator("gpt-4o")},
		{"cl100k", NewEstimator("gpt-4")},
	} {
		b.Run(tt.name, func(b *testing.B) {
			<-Ready(tt.est)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n = tt.est.Count(text)
			}
			b.ReportMetric(float64(n), "tokens")
		})
	}
}
