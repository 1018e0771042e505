package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// BenchmarkACPFirstUpdate times `agent acp` from process start to the
// first agent_message_chunk of a one-step answer (initialize, session/new
// and session/prompt written as soon as each may be), beside `agent run`
// of the same prompt from start to exit, one after the other against the
// same scripted server. It reports both means, their ratio and each one's
// peak RSS.
func BenchmarkACPFirstUpdate(b *testing.B) {
	srv := pt.New(b)
	srv.Handle(func(pt.Request) pt.Step { return pt.Text(benchAnswer) })
	home := b.TempDir()
	work := b.TempDir()
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "AGENT_DATA_DIR=" + filepath.Join(home, "data"),
		"OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY=sk-bench", "AGENT_MODEL=gpt-4.1"}
	var acpTotal, runTotal time.Duration
	var acpRSS, runRSS int64
	for i := 0; i < b.N+1; i++ { // the first round of each is untimed
		d, rss := acpFirstUpdate(b, env, work)
		start := time.Now()
		run := exec.Command(agentBin, "run", "hi")
		run.Dir, run.Env = work, env
		if out, err := run.CombinedOutput(); err != nil {
			b.Fatalf("agent run: %v: %s", err, out)
		}
		if i == 0 {
			continue
		}
		runTotal += time.Since(start)
		acpTotal += d
		acpRSS = max(acpRSS, rss)
		runRSS = max(runRSS, run.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	}
	n := float64(b.N)
	b.ReportMetric(float64(acpTotal.Microseconds())/1000/n, "acp-first-update-ms")
	b.ReportMetric(float64(runTotal.Microseconds())/1000/n, "run-ms")
	b.ReportMetric(float64(acpTotal)/float64(runTotal), "acp/run")
	b.ReportMetric(float64(acpRSS)/1024, "acp-peak-RSS-MiB")
	b.ReportMetric(float64(runRSS)/1024, "run-peak-RSS-MiB")
}

// acpFirstUpdate runs one `agent acp` to its first answer chunk, then
// closes its stdin and waits for it.
func acpFirstUpdate(b *testing.B, env []string, work string) (time.Duration, int64) {
	cmd := exec.Command(agentBin, "acp")
	cmd.Dir, cmd.Env = work, env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 0, 1<<20), 10<<20)
	// Responses may come in any order (the requests are served
	// concurrently): one skipped while waiting for another is kept.
	responses := map[float64]map[string]any{}
	next := func(want func(map[string]any) bool) map[string]any {
		for _, m := range responses {
			if want(m) {
				return m
			}
		}
		for lines.Scan() {
			var m map[string]any
			if json.Unmarshal(lines.Bytes(), &m) != nil {
				continue
			}
			if want(m) {
				return m
			}
			if id, ok := m["id"].(float64); ok && m["method"] == nil {
				responses[id] = m
			}
		}
		b.Fatalf("agent acp ended early: %v", lines.Err())
		return nil
	}
	isID := func(id float64) func(map[string]any) bool {
		return func(m map[string]any) bool { v, _ := m["id"].(float64); return v == id && m["method"] == nil }
	}
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`+"\n", work)
	next(isID(1))
	res := next(isID(2))
	id, _ := res["result"].(map[string]any)["sessionId"].(string)
	fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"hi"}]}}`+"\n", id)
	next(func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		u, _ := p["update"].(map[string]any)
		return m["method"] == "session/update" && u["sessionUpdate"] == "agent_message_chunk"
	})
	d := time.Since(start)
	next(isID(3))
	stdin.Close()
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("agent acp: %v", err)
	}
	return d, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
}
