package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestPruneRowUnderUnderReportingProvider: a prune's row (agent inspect)
// counts the request as the compaction decision does, so a provider that
// under-reports usage cannot make it read "1303 → 0": the tokens after a
// prune are never below the system prompt and tool schemas that every
// request carries (issue 27 item 8).
func TestPruneRowUnderUnderReportingProvider(t *testing.T) {
	for _, div := range []float64{10, 1.9} {
		t.Run(fmt.Sprintf("usage ÷%g", div), func(t *testing.T) {
			n := 0
			h := newHarnessWith(t, func(o *Options, c *config.Config) {
				c.Models["gpt-4.1"] = config.ModelInfo{ContextWindow: 16000, MaxOutput: 2000}
			})
			h.srv.Handle(func(req pt.Request) pt.Step {
				n++
				u := pt.UsageChunk(pt.Usage{Prompt: int(float64(len(req.Body)) / 4 / div), Completion: 10})
				switch n {
				case 1, 2:
					args := fmt.Sprintf(`{"command":"yes 'the quick brown fox jumps over the lazy dog' | head -n %d"}`, 499+n)
					return pt.Reply(append(pt.ToolCallChunks(0, fmt.Sprintf("c%d", n), "bash", args, 1), pt.FinishChunk("tool_calls"), u)...)
				}
				return pt.Reply(pt.TextChunk("ok"), pt.FinishChunk("stop"), u)
			})
			for _, q := range []string{"one", "two", "three"} {
				if res := h.turn(q); res.Err != nil {
					t.Fatal(res.Err)
				}
			}
			log, err := h.store.ListEventLogKind(context.Background(), h.r.Session().ID, "prune")
			if err != nil || len(log) == 0 {
				t.Fatalf("no prune logged (%v)", err)
			}
			var p message.PruneInfo
			if err := json.Unmarshal(log[0].Data, &p); err != nil {
				t.Fatal(err)
			}
			s := h.r.Reading()
			fixed := s.Breakdown.System + s.Breakdown.Tools
			if p.TokensAfter < fixed || p.TokensBefore <= p.TokensAfter {
				t.Errorf("prune row %d → %d; the fixed prompt alone is %d", p.TokensBefore, p.TokensAfter, fixed)
			}
		})
	}
}
