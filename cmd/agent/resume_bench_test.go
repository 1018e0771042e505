package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/storage"
)

// BenchmarkResumeRun times `agent run -c hi` on a long stored session
// against `agent run hi` (a new session) in the same rounds, against the
// same scripted server: wall time and peak RSS of each, and their ratios
// (issue 36 item 1: ≤ 1.5× the time and ≤ 1.2× the peak RSS). The session
// is generated through the store's own API (seedLongSession): 10,000 and
// 100,000 parts with a compaction every 285 turns, pins, tool parts with
// outputs and pruned ones. It reports CPU time too; with
// AGENT_BENCH_BASELINE naming another agent binary (an older build), that
// one resumes a copy of the session and makes new sessions in the same
// rounds, reported as baseline-*. The server does not decode what it
// is sent (see below).
func BenchmarkResumeRun(b *testing.B) {
	for _, parts := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("parts=%d", parts), func(b *testing.B) {
			tools := buildBenchTools(b)
			srv := pt.New(b)
			// The server answers without decoding the request: its
			// decode of the resumed run's ≈ 150 KB body took ≈ 3.6 ms
			// before it answered, counted as the agent's time (a new
			// session's few bytes cost nothing). AGENT_BENCH_SERVER_DECODES=1
			// measures as before, for figures taken so.
			if os.Getenv("AGENT_BENCH_SERVER_DECODES") == "" {
				srv.SkipDecode("gpt-4.1")
			}
			srv.Handle(func(pt.Request) pt.Step { return pt.Text(benchAnswer) })
			home := b.TempDir()
			work := filepath.Join(home, "work")
			if err := os.MkdirAll(work, 0o755); err != nil {
				b.Fatal(err)
			}
			data := filepath.Join(home, "data")
			seedLongSession(b, data, work, parts)
			env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "AGENT_DATA_DIR=" + data,
				"OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY=sk-bench", "AGENT_MODEL=gpt-4.1"}
			// New sessions go to a data dir of their own, so that -c
			// keeps finding the long one.
			newEnv := append(env[:len(env):len(env)], "AGENT_DATA_DIR="+filepath.Join(home, "data-new"))
			// The baseline build resumes a copy of the same session and
			// makes its new sessions in a data dir of its own.
			baseline := os.Getenv("AGENT_BENCH_BASELINE")
			var baseEnv, baseNewEnv []string
			if baseline != "" {
				baseData := filepath.Join(home, "data-baseline")
				if out, err := exec.Command("cp", "-r", data, baseData).CombinedOutput(); err != nil {
					b.Fatalf("copy the session for the baseline: %v: %s", err, out)
				}
				baseEnv = append(env[:len(env):len(env)], "AGENT_DATA_DIR="+baseData)
				baseNewEnv = append(env[:len(env):len(env)], "AGENT_DATA_DIR="+filepath.Join(home, "data-baseline-new"))
				tools.measure(b, baseEnv, work, benchAnswer, baseline, "run", "-c", "hi")
				tools.measure(b, baseNewEnv, work, benchAnswer, baseline, "run", "hi")
			}
			tools.measure(b, env, work, benchAnswer, agentBin, "run", "-c", "hi")
			tools.measure(b, newEnv, work, benchAnswer, agentBin, "run", "hi")
			var resumed, fresh, base, baseNew resumeTotals
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if baseline != "" {
					base.add(tools.measure(b, baseEnv, work, benchAnswer, baseline, "run", "-c", "hi"))
					baseNew.add(tools.measure(b, baseNewEnv, work, benchAnswer, baseline, "run", "hi"))
				}
				resumed.add(tools.measure(b, env, work, benchAnswer, agentBin, "run", "-c", "hi"))
				fresh.add(tools.measure(b, newEnv, work, benchAnswer, agentBin, "run", "hi"))
			}
			resumed.report(b, fresh, "")
			if baseline != "" {
				base.report(b, baseNew, "baseline-")
			}
		})
	}
}

// resumeTotals sums the runs of one program in BenchmarkResumeRun.
type resumeTotals struct {
	n         int
	wall, cpu time.Duration
	rssKiB    int64 // the highest peak
}

func (t *resumeTotals) add(m runMeasure) {
	t.n++
	t.wall += m.wall
	t.cpu += m.cpu
	t.rssKiB = max(t.rssKiB, m.maxRSSKiB)
}

// report reports t (resumed runs) against fresh (new sessions), each
// metric's name after prefix: mean wall and CPU time (user + system,
// which a busy machine disturbs less), the highest peak RSS, and the
// ratios the targets are about.
func (t resumeTotals) report(b *testing.B, fresh resumeTotals, prefix string) {
	ms := func(d time.Duration, n int) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
	b.ReportMetric(ms(t.wall, t.n), prefix+"resume-ms")
	b.ReportMetric(ms(fresh.wall, fresh.n), prefix+"new-ms")
	b.ReportMetric(float64(t.wall)/float64(fresh.wall), prefix+"time-ratio")
	b.ReportMetric(ms(t.cpu, t.n), prefix+"resume-cpu-ms")
	b.ReportMetric(ms(fresh.cpu, fresh.n), prefix+"new-cpu-ms")
	b.ReportMetric(float64(t.cpu)/float64(fresh.cpu), prefix+"cpu-ratio")
	b.ReportMetric(float64(t.rssKiB)/1024, prefix+"resume-peak-RSS-MiB")
	b.ReportMetric(float64(fresh.rssKiB)/1024, prefix+"new-peak-RSS-MiB")
	b.ReportMetric(float64(t.rssKiB)/float64(fresh.rssKiB), prefix+"rss-ratio")
}

// seedLongSession writes one session of about parts parts in dir through
// the store: turns of a question and an answer (text, a bash call with a
// 600-byte output, pruned in all but the newest turns before each
// compaction, more text, a step-finish), a compaction (its marker, the
// summary, a kept tail) every 285 turns, and three pins.
func seedLongSession(b testing.TB, data, dir string, parts int) {
	b.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, data)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	s := &message.Session{Title: "long", Model: "gpt-4.1", Dir: dir}
	if err := st.CreateSession(ctx, s); err != nil {
		b.Fatal(err)
	}
	turns := parts / 5
	// A compaction every 285 turns, as a 128K window fills: 7 in
	// 10,000 parts (the session had 6), 70 in 100,000; the last
	// one 142 turns before the end in both, so that both send the same.
	const every = 285
	now := time.Now()
	output := strings.Repeat("a line of output\n", 35)
	var batch []message.Entry
	var tailFrom string
	flush := func() {
		if err := st.ImportHistory(ctx, s.ID, batch); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
	}
	for i := range turns {
		if i > 0 && (turns-i)%every == every/2 {
			marker := message.NewID() // ids are time-ordered: the marker before its summary
			sum := message.NewID()
			batch = append(batch, message.Entry{
				Message: message.Message{ID: marker, Role: message.RoleUser, Synthetic: true, FinishedAt: now},
				Parts: []message.Part{{Type: message.PartCompaction, Compaction: &message.CompactionState{
					Auto: true, Reason: "overflow", SummaryID: sum, TailFrom: tailFrom, Outcome: "summary"}}},
			}, message.Entry{
				Message: message.Message{ID: sum, Role: message.RoleAssistant, Summary: true, Model: "gpt-4.1", FinishReason: "stop", FinishedAt: now},
				Parts:   []message.Part{{Type: message.PartText, Text: fmt.Sprintf("## Goal\nsummary %d\n%s", i/every, strings.Repeat("what was done. ", 100))}},
			})
			flush()
		}
		compacted := time.Time{}
		if (turns-i)%every > every/2+10 || (turns-i)%every <= every/2 && turns-i > 10 {
			compacted = now
		}
		user := message.Entry{
			Message: message.Message{ID: message.NewID(), Role: message.RoleUser, FinishedAt: now},
			Parts:   []message.Part{{Type: message.PartText, Text: fmt.Sprintf("question %d: why does the handler fail?", i)}},
		}
		if (turns-i)%every == every/2+3 {
			tailFrom = user.Message.ID
		}
		batch = append(batch, user, message.Entry{
			Message: message.Message{ID: message.NewID(), Role: message.RoleAssistant, Model: "gpt-4.1", FinishReason: "stop", FinishedAt: now},
			Parts: []message.Part{
				{Type: message.PartText, Text: fmt.Sprintf("Let me look. Answer %d follows.", i)},
				{Type: message.PartTool, Tool: &message.ToolState{CallID: fmt.Sprintf("call_%d", i), Name: "bash", Status: message.ToolCompleted,
					Input: `{"command":"go test ./..."}`, Output: output, StartedAt: now, EndedAt: now, CompactedAt: compacted}},
				{Type: message.PartText, Text: "The handler returns early; " + strings.Repeat("more explanation ", 10)},
				{Type: message.PartStepFinish, Step: &message.StepState{Usage: message.Usage{Input: 20000, Output: 150}, FinishReason: "stop"}},
			},
		})
		if len(batch) >= 2000 {
			flush()
		}
	}
	flush()
	for i := range 3 {
		if err := st.AddPin(ctx, &message.Pin{SessionID: s.ID, Text: fmt.Sprintf("pinned rule %d: keep the API stable", i)}); err != nil {
			b.Fatal(err)
		}
	}
}
