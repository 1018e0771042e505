package loop

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/earlygit"
)

// budgetRepo makes a committed repository of n files with one change and
// one untracked file.
func budgetRepo(tb testing.TB, n int) string {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("no git")
	}
	dir := tb.TempDir()
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%02d/s%02d/f%d.go", i/500, i/50%10, i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("package p // %d\n", i), 3)), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.email=a@b", "-c", "user.name=a", "-c", "gc.auto=0", "-c", "maintenance.auto=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q", "-b", "trunk")
	git("add", "-A")
	git("commit", "-qm", "init")
	if err := os.WriteFile(filepath.Join(dir, "d00/s00/f0.go"), []byte("changed\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("new\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// TestHeadlessGitStatusIsBounded: a headless start waits for the early
// git status no longer than its budget, and the prompt then says the
// status is unknown; within the budget it is git's own.
func TestHeadlessGitStatusIsBounded(t *testing.T) {
	dir := budgetRepo(t, 3)
	earlygit.Start(dir, earlygit.StatusArgs...)
	begin := time.Now()
	got, err := gitStatusWithin(context.Background(), dir, time.Microsecond) // git cannot start that fast
	if waited := time.Since(begin); err != nil || waited > time.Second {
		t.Fatalf("gitStatusWithin: %v after %v", err, waited)
	}
	if got != statusNotInTime(time.Microsecond) {
		t.Fatalf("status over budget = %q", got)
	}
	prompt := Environment{Dir: dir, GitStatus: got}.Render()
	if !strings.Contains(prompt, "not gathered: git status took longer than") {
		t.Fatalf("prompt does not say the status is unknown:\n%s", prompt)
	}

	earlygit.Start(dir, earlygit.StatusArgs...)
	got, err = gitStatusWithin(context.Background(), dir, earlygit.Timeout)
	if err != nil || !strings.Contains(got, "## trunk") || !strings.Contains(got, " M d00/s00/f0.go") || !strings.Contains(got, "?? new.txt") {
		t.Fatalf("status within budget = %q, %v", got, err)
	}
}

// BenchmarkHeadlessGitStatus measures what the prompt's git status adds
// to a headless start (issue 36: ≤ 20 ms in a large repository): the
// early status is started and taken at once (the worst case: no package
// initialisation in between), in a 13,000-file repository and a 30-file
// one, waiting for git to the end (wait-all, the code before the budget)
// and with headlessStatusBudget (bounded). `go test -run '^$' -bench
// HeadlessGitStatus -benchtime 20x ./internal/loop`.
func BenchmarkHeadlessGitStatus(b *testing.B) {
	for _, size := range []struct {
		name  string
		files int
	}{{"13k", 13000}, {"small", 30}} {
		dir := budgetRepo(b, size.files)
		for _, mode := range []struct {
			name   string
			budget time.Duration
		}{{"wait-all", earlygit.Timeout}, {"bounded", headlessStatusBudget}} {
			b.Run(size.name+"/"+mode.name, func(b *testing.B) {
				given := 0
				for b.Loop() {
					earlygit.Start(dir, earlygit.StatusArgs...)
					got, err := gitStatusWithin(context.Background(), dir, mode.budget)
					if err != nil {
						b.Fatal(err)
					}
					if strings.HasPrefix(got, "(not gathered") {
						given++
					}
				}
				b.ReportMetric(float64(given)/float64(b.N), "not-gathered/op")
			})
		}
	}
}
