package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chatIdleWait is how long a chat is left alone before its RSS is read:
// the history read behind the first frame and the environment's
// gathering are done by then (a resumed 10,000-part session's whole
// history is in at ≈ 0.2 s).
const chatIdleWait = 2 * time.Second

// BenchmarkChatIdleRSS starts the chat in tmux on a fresh data directory
// and on a session of 10,000 parts (2,000 turns), interleaved, and reads
// each process's RSS once it has sat idle for chatIdleWait after its
// first frame (the resumed one's: its last answer on screen). It reports
// the medians and their ratio (issue 36's target: ≤ 1.3). With
// AGENT_BENCH_BASELINE naming another agent binary, that one runs in the
// same rounds too (its own copy of the data), reported as baseline-*. It
// needs tmux.
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
	baseline := os.Getenv("AGENT_BENCH_BASELINE")
	baseData := filepath.Join(root, "data-10k-baseline")
	if baseline != "" {
		if out, err := exec.Command("cp", "-r", data, baseData).CombinedOutput(); err != nil {
			b.Fatalf("copy the session for the baseline: %v: %s", err, out)
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
	var fresh, resumed, baseFresh, baseResumed []int
	for i := 0; b.Loop(); i++ {
		f := func() {
			fresh = append(fresh, idle(agentBin, filepath.Join(root, fmt.Sprintf("data-%d", i)), "Message the agent"))
		}
		r := func() { resumed = append(resumed, idle(agentBin, data, "Answer 1999", "--session", id)) }
		if i%2 == 0 {
			f()
			r()
		} else {
			r()
			f()
		}
		if baseline != "" {
			baseFresh = append(baseFresh, idle(baseline, filepath.Join(root, fmt.Sprintf("data-b%d", i)), "Message the agent"))
			baseResumed = append(baseResumed, idle(baseline, baseData, "Answer 1999", "--session", id))
		}
	}
	mf, mr := medianInt(fresh), medianInt(resumed)
	b.ReportMetric(float64(mf)/1024, "fresh-MiB")
	b.ReportMetric(float64(mr)/1024, "resumed-MiB")
	b.ReportMetric(float64(mr)/float64(mf), "ratio")
	if baseline != "" {
		bf, br := medianInt(baseFresh), medianInt(baseResumed)
		b.ReportMetric(float64(bf)/1024, "baseline-fresh-MiB")
		b.ReportMetric(float64(br)/1024, "baseline-resumed-MiB")
		b.ReportMetric(float64(br)/float64(bf), "baseline-ratio")
	}
}

func medianInt(v []int) int {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
