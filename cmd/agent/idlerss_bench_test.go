package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/storage"
)

// chatIdleWait is how long a chat is left alone before its RSS is read:
// the history read behind the first frame and the environment's
// gathering are done by then (a resumed 10,000-part session's whole
// history is in at ≈ 0.2 s).
const chatIdleWait = 2 * time.Second

// BenchmarkChatIdleRSS starts the chat in tmux on a fresh data directory,
// on a session of 10,000 parts (2,000 turns) never compacted, which the
// loop sends and holds whole, and on one of 10,000 parts with 7
// compactions (seedLongSession: the session had 6), which it
// holds from the last summary on, interleaved, and reads each process's
// RSS once it has sat idle for chatIdleWait after its first frame (a
// resumed one's: its last answer on screen). It reports the medians and
// their ratios to the fresh chat's (issue 36's target: ≤ 1.3 for both
// sessions). With AGENT_BENCH_BASELINE naming another agent binary, that
// one runs in the same rounds too (its own copy of the data), reported as
// baseline-*. It needs tmux.
func BenchmarkChatIdleRSS(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux is not installed: the idle RSS benchmark needs it")
	}
	srv := newArrivalServer(b)
	root := b.TempDir()
	work := filepath.Join(root, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		b.Fatal(err)
	}
	base := []string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color",
		"XDG_CONFIG_HOME=" + filepath.Join(root, ".config"),
		"OPENAI_API_KEY=sk-bench", "OPENAI_BASE_URL=" + srv.url, "AGENT_MODEL=gpt-4.1"}
	data := filepath.Join(root, "data-10k")
	id := seedBenchSession(b, data, work, 2000)
	compData := filepath.Join(root, "data-compacted")
	compID := seedCompactedSession(b, compData, work)
	baseline := os.Getenv("AGENT_BENCH_BASELINE")
	baseData, baseComp := filepath.Join(root, "data-10k-baseline"), filepath.Join(root, "data-compacted-baseline")
	if baseline != "" {
		for from, to := range map[string]string{data: baseData, compData: baseComp} {
			if out, err := exec.Command("cp", "-r", from, to).CombinedOutput(); err != nil {
				b.Fatalf("copy the session for the baseline: %v: %s", err, out)
			}
		}
	}
	idle := func(bin, data, want string, args ...string) int {
		p := startPane(b, work, append(slices.Clone(base), "AGENT_DATA_DIR="+data), bin, args...)
		defer p.kill()
		p.waitText(want)
		time.Sleep(chatIdleWait) // idle is a time left alone, not an event
		out, err := exec.Command("tmux", "-L", p.socket, "display-message", "-p", "-t", "main", "#{pane_pid}").Output()
		if err != nil {
			b.Fatalf("pane pid: %v", err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			b.Fatalf("status of %d: %v", pid, err)
		}
		for _, l := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(l, "VmRSS:") {
				kb, _ := strconv.Atoi(strings.Fields(l)[1])
				return kb
			}
		}
		b.Fatal("no VmRSS")
		return 0
	}
	var fresh, resumed, compacted, baseFresh, baseResumed, baseCompacted []int
	for i := 0; b.Loop(); i++ {
		runs := []func(){
			func() {
				fresh = append(fresh, idle(agentBin, filepath.Join(root, fmt.Sprintf("data-%d", i)), "Message the agent"))
			},
			func() { resumed = append(resumed, idle(agentBin, data, "Answer 1999", "--session", id)) },
			func() { compacted = append(compacted, idle(agentBin, compData, "Answer 1999", "--session", compID)) },
		}
		if baseline != "" {
			runs = append(runs,
				func() {
					baseFresh = append(baseFresh, idle(baseline, filepath.Join(root, fmt.Sprintf("data-b%d", i)), "Message the agent"))
				},
				func() { baseResumed = append(baseResumed, idle(baseline, baseData, "Answer 1999", "--session", id)) },
				func() {
					baseCompacted = append(baseCompacted, idle(baseline, baseComp, "Answer 1999", "--session", compID))
				})
		}
		for k := range runs { // each round starts with another of them
			runs[(k+i)%len(runs)]()
		}
	}
	report := func(prefix string, fresh, resumed, compacted []int) {
		mf, mr, mc := medianInt(fresh), medianInt(resumed), medianInt(compacted)
		b.ReportMetric(float64(mf)/1024, prefix+"fresh-MiB")
		b.ReportMetric(float64(mr)/1024, prefix+"resumed-MiB")
		b.ReportMetric(float64(mr)/float64(mf), prefix+"ratio")
		b.ReportMetric(float64(mc)/1024, prefix+"compacted-MiB")
		b.ReportMetric(float64(mc)/float64(mf), prefix+"compacted-ratio")
	}
	report("", fresh, resumed, compacted)
	if baseline != "" {
		report("baseline-", baseFresh, baseResumed, baseCompacted)
	}
}

// seedCompactedSession stores seedLongSession's 10,000 parts in data and
// returns the session's id.
func seedCompactedSession(b *testing.B, data, dir string) string {
	seedLongSession(b, data, dir, 10000)
	ctx := context.Background()
	st, err := storage.Open(ctx, data)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	s, err := st.LatestSession(ctx, dir)
	if err != nil || s == nil {
		b.Fatalf("the compacted session: %v", err)
	}
	return s.ID
}

func medianInt(v []int) int {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
