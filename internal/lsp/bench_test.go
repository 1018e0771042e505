package lsp

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/tools"
)

// BenchmarkEditOverhead measures what diagnostics add to an edit of a
// file of this repository with no new diagnostic, beyond gopls's own
// time to publish: each iteration edits a copy of internal/lsp/framing.go
// (a comment line changes) through BeforeEdit and its after func, and
// times gopls separately as the span from the change sent to the
// publish received. Reported: p50 of the whole and of the overhead.
//
//	go test -run '^$' -bench BenchmarkEditOverhead -benchtime 30x ./internal/lsp/
func BenchmarkEditOverhead(b *testing.B) {
	gopls := goplsPath(b)
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	// A file of the repository's own package, so gopls loads the module.
	src, err := os.ReadFile("framing.go")
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(root, "internal", "lsp", "zz_bench_edit.go")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		b.Fatal(err)
	}
	defer os.Remove(path)
	s := New(config.LSP{WaitMS: 60000, Servers: map[string]config.LSPServer{"go": {Command: gopls}}})
	defer s.Close()
	env := &tools.Env{Dir: root}
	text := strings.Replace(string(src), "package lsp", "package lsp\n\n// zz", 1)
	text = strings.Replace(text, "func readMessage(", "func readMessageZZ(", 1)
	text = strings.Replace(text, "func readLine(", "func readLineZZ(", 1)
	text = strings.Replace(text, "func writeMessage(", "func writeMessageZZ(", 1)
	text = strings.ReplaceAll(text, "maxMessageBytes = ", "maxMessageBytesZZ = ")
	text = strings.ReplaceAll(text, "maxHeaderLine   = ", "maxHeaderLineZZ   = ")
	text = strings.ReplaceAll(text, "maxHeaderLines  = ", "maxHeaderLinesZZ  = ")
	text = strings.ReplaceAll(text, "var errFraming = ", "var errFramingZZ = ")
	write := func(i int) { _ = os.WriteFile(path, []byte(text+"\n// "+strings.Repeat("x", i%7)+"\n"), 0o644) }
	// Warm up: the first edit loads the workspace.
	write(0)
	ctx := context.Background()
	if note := s.BeforeEdit(ctx, env, path)(ctx); note != "" {
		b.Logf("warm-up: %s", note)
	}
	var whole, server []time.Duration
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		began := time.Now()
		after := s.BeforeEdit(ctx, env, path)
		write(i)
		t0 := time.Now()
		note := after(ctx)
		whole = append(whole, time.Since(began))
		server = append(server, serverSpan(s, path, t0))
		if note != "" {
			b.Fatalf("edit %d reported: %s", i, note)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(p50(whole).Microseconds())/1000, "ms-p50-edit")
	b.ReportMetric(float64(p50(server).Microseconds())/1000, "ms-p50-gopls")
	over := make([]time.Duration, len(whole))
	for i := range whole {
		over[i] = whole[i] - server[i]
	}
	b.ReportMetric(float64(p50(over).Microseconds())/1000, "ms-p50-overhead")
}

// serverSpan is the time from t0 (the change sent) to the last publish
// for path, as the client recorded it.
func serverSpan(s *Servers, path string, t0 time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sv := range s.slots {
		sv.mu.Lock()
		c := sv.c
		sv.mu.Unlock()
		if c != nil {
			c.mu.Lock()
			d := c.docs[fileURI(path)]
			at := d.pubAt
			c.mu.Unlock()
			return at.Sub(t0)
		}
	}
	return 0
}

func p50(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
