package main

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// BenchmarkHeadlessRun times the real binary answering a one-step prompt
// against a local server: process start, config, database, one streamed
// call, persistence and exit. It reports the peak RSS too.
func BenchmarkHeadlessRun(b *testing.B) {
	srv := pt.New(b)
	srv.Handle(func(pt.Request) pt.Step { return pt.Text("Hello there.") })
	home := b.TempDir()
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "AGENT_DATA_DIR=" + home + "/data",
		"OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY=sk-bench", "AGENT_MODEL=gpt-4.1"}
	var maxRSS int64
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(agentBin, "run", "hi")
		cmd.Env, cmd.Dir = env, home
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			maxRSS = max(maxRSS, ru.Maxrss)
		}
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/run")
	b.ReportMetric(float64(maxRSS)/1024, "peak-RSS-MiB")
}
