package mcp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
	"github.com/ctxloop/agent/internal/tools"
)

// BenchmarkStart is what Start costs its caller with one stdio server
// configured (start-ns/op): nothing waits for the server, whose start and
// handshake run in the background. ns/op is Start and Close together
// (Close stops the server, started or not).
func BenchmarkStart(b *testing.B) {
	specs := map[string]config.MCPServer{"t": mcptest.Stdio(b, nil)}
	dir := b.TempDir()
	var inStart time.Duration
	for b.Loop() {
		began := time.Now()
		s := Start(context.Background(), specs, Options{Dir: dir})
		inStart += time.Since(began)
		s.Close()
	}
	b.ReportMetric(float64(inStart.Nanoseconds())/float64(b.N), "start-ns/op")
}

// BenchmarkCallRoundTrip is one call of a tool of a connected server,
// through the registry (validation, sanitising, the truncation check).
func BenchmarkCallRoundTrip(b *testing.B) {
	for _, kind := range []string{"stdio", "http"} {
		b.Run(kind, func(b *testing.B) {
			spec := mcptest.Stdio(b, nil)
			if kind == "http" {
				spec = config.MCPServer{URL: mcptest.HTTP(b, "").URL}
			}
			s := Start(context.Background(), map[string]config.MCPServer{"t": spec}, Options{Dir: b.TempDir()})
			defer s.Close()
			if err := s.Wait(context.Background()); err != nil || len(s.Tools()) == 0 {
				b.Fatalf("not connected: %v %+v", err, s.Status())
			}
			reg := tools.NewRegistry().With(s.Tools()...)
			env := &tools.Env{Dir: b.TempDir()}
			call := tools.Call{ID: "c", Name: "t__echo", Input: json.RawMessage(`{"text":"ping"}`)}
			for b.Loop() {
				if res := reg.Run(context.Background(), env, call); res.Output != "ping" {
					b.Fatalf("%+v", res)
				}
			}
		})
	}
}
