package recall

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// BenchmarkRecall runs recall{query} through the registry over a session
// of 10,000 parts (1,000 messages: text, reasoning, tool calls with 1–2 KB
// outputs of varied lines, the older half pruned, a summary in the
// middle): a marker in one pruned output, and a word in every output.
func BenchmarkRecall(b *testing.B) {
	ctx := context.Background()
	st, err := storage.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	sess := &message.Session{Dir: "/w"}
	if err := st.CreateSession(ctx, sess); err != nil {
		b.Fatal(err)
	}
	parts := 0
	var summaryAt string
	for i := 0; parts < 10_000; i++ {
		role := message.RoleAssistant
		if i%10 == 0 {
			role = message.RoleUser
		}
		m := &message.Message{SessionID: sess.ID, Role: role, Summary: i == 500}
		if err := st.CreateMessage(ctx, m); err != nil {
			b.Fatal(err)
		}
		add := func(p message.Part) {
			p.SessionID, p.MessageID = sess.ID, m.ID
			if err := st.UpsertPart(ctx, &p); err != nil {
				b.Fatal(err)
			}
			parts++
		}
		if i == 500 {
			summaryAt = m.ID
		}
		if role == message.RoleUser {
			add(message.Part{Type: message.PartText, Text: fmt.Sprintf("please fix test %d and run it again", i)})
			continue
		}
		add(message.Part{Type: message.PartReasoning, Text: strings.Repeat("thinking about it ", 12)})
		add(message.Part{Type: message.PartText, Text: strings.Repeat("Here is what I found. ", 20)})
		for j := range 7 {
			var out strings.Builder
			for k := 0; out.Len() < 1000+(i*j*97)%1000; k++ {
				fmt.Fprintf(&out, "ok  \tgithub.com/acme/svc%d/pkg%d_%d\t%d.%03ds coverage %d%%\n", i%37, j, k, k%9, (i*k)%1000, (i+k)%100)
			}
			if i == 123 && j == 3 {
				out.WriteString("panic: MARKER_bench_q1 in the linker\n")
			}
			ts := &message.ToolState{CallID: fmt.Sprintf("call_%d_%d", i, j), Name: "bash", Status: message.ToolCompleted,
				Input: `{"command":"go test ./..."}`, Output: out.String()}
			if i < 500 {
				ts.CompactedAt = time.Now()
			}
			add(message.Part{Type: message.PartTool, Tool: ts})
		}
	}
	mk := &message.Message{SessionID: sess.ID, Role: message.RoleUser, Synthetic: true}
	if err := st.CreateMessage(ctx, mk); err != nil {
		b.Fatal(err)
	}
	if err := st.UpsertPart(ctx, &message.Part{SessionID: sess.ID, MessageID: mk.ID, Type: message.PartCompaction,
		Compaction: &message.CompactionState{SummaryID: summaryAt, Outcome: message.CompactionSummary}}); err != nil {
		b.Fatal(err)
	}
	reg := tools.NewRegistry().With(New(st, sess.ID))
	env := &tools.Env{Dir: b.TempDir()}
	for _, q := range []string{"MARKER_bench_q1", "coverage"} {
		b.Run(q, func(b *testing.B) {
			in, _ := json.Marshal(map[string]any{"query": q})
			var durations []time.Duration
			for b.Loop() {
				start := time.Now()
				res := reg.Run(ctx, env, tools.Call{ID: "c", Name: Name, Input: in})
				durations = append(durations, time.Since(start))
				if res.IsError || !strings.Contains(res.Output, "ref=") {
					b.Fatalf("recall: %s", res.Output)
				}
			}
			slices.Sort(durations)
			b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds())/1e6, "p50-ms")
		})
	}
}
