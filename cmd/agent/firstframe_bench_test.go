package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// firstFramePairs is how many interleaved pairs of starts one iteration
// of BenchmarkFirstFrame times.
const firstFramePairs = 15

// BenchmarkFirstFrame starts a bare Bubble Tea program drawing one line
// (bench/barefirstframe) and the chat (fresh data dir, a scripted server)
// in tmux, interleaved, and times each from `tmux new-session` until its
// first frame is on screen (capture-pane): the bare line, and for the
// chat the welcome screen with the editor. It reports each median and
// their ratio (target ≤ 1.5). It needs tmux and is skipped without it;
// `make test` does not run it (no -bench).
func BenchmarkFirstFrame(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux is not installed: the first-frame benchmark needs it")
	}
	bare := filepath.Join(b.TempDir(), "barefirstframe")
	if out, err := goBuild(bare, "github.com/ctxloop/agent/bench/barefirstframe").CombinedOutput(); err != nil {
		b.Fatalf("build the bare program: %v: %s", err, out)
	}
	srv := pt.New(b)
	root := b.TempDir()
	work := filepath.Join(root, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		b.Fatal(err)
	}
	base := []string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color",
		"XDG_CONFIG_HOME=" + filepath.Join(root, ".config"),
		"OPENAI_API_KEY=sk-bench", "OPENAI_BASE_URL=" + srv.URL, "AGENT_MODEL=gpt-4.1"}
	var bareT, agentT []time.Duration
	run := 0
	b.ResetTimer()
	for range b.N {
		for i := range firstFramePairs {
			timeBare := func() {
				bareT = append(bareT, firstFrame(b, work, base, bare, "bare first frame"))
			}
			timeAgent := func() {
				run++
				env := append(slices.Clone(base), fmt.Sprintf("AGENT_DATA_DIR=%s/data-%d", root, run))
				agentT = append(agentT, firstFrame(b, work, env, agentBin, "Tips", "Message the agent"))
			}
			if i%2 == 0 {
				timeBare()
				timeAgent()
			} else {
				timeAgent()
				timeBare()
			}
		}
	}
	b.StopTimer()
	mb, ma := median(bareT), median(agentT)
	b.ReportMetric(float64(mb.Microseconds())/1000, "bare-ms")
	b.ReportMetric(float64(ma.Microseconds())/1000, "agent-ms")
	b.ReportMetric(float64(ma)/float64(mb), "ratio")
}

// firstFrame runs bin in a new tmux server's 120×40 pane with env (and
// nothing else) in dir, and returns the time from `tmux new-session` until
// the screen holds every one of want.
func firstFrame(b *testing.B, dir string, env []string, bin string, want ...string) time.Duration {
	b.Helper()
	socket := fmt.Sprintf("agent-ff-%d-%d", os.Getpid(), time.Now().UnixNano())
	cmd := "cd " + shellQuote(dir) + " && exec env -i"
	for _, v := range env {
		cmd += " " + shellQuote(v)
	}
	cmd += " " + shellQuote(bin)
	defer func() { _ = exec.Command("tmux", "-L", socket, "kill-server").Run() }()
	start := time.Now()
	if out, err := exec.Command("tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", "-s", "main", cmd).CombinedOutput(); err != nil {
		b.Fatalf("tmux new-session: %v: %s", err, out)
	}
	deadline := start.Add(10 * time.Second)
	for {
		out, _ := exec.Command("tmux", "-L", socket, "capture-pane", "-p", "-t", "main").Output()
		screen := string(out)
		all := true
		for _, w := range want {
			all = all && strings.Contains(screen, w)
		}
		if all {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s: no first frame after 10 s; screen:\n%s", filepath.Base(bin), screen)
		}
	}
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
