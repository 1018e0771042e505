package snapshot

// scale_bench_test.go: checkpoints at repository scale against git on the
// same tree, in the same run (issue 26, "Speed"). The trees are generated
// once per run in the benchmark's temporary directory; nothing here runs in
// `go test` or `make test` (benchmarks only). bench/checkpoints runs it.

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// genRepo writes a git repository of files files whose sizes follow a
// log-normal distribution of the given median (σ 1.6, at most 1.9 MB:
// mostly small sources, a few large files, like a real repository), 20
// files to a directory, three levels deep, committed. It returns the
// files' paths and their total size. Its objects are packed, as a
// clone's are.
func genRepo(tb testing.TB, dir string, files int, median float64) ([]string, int64) {
	tb.Helper()
	paths, total := genFiles(tb, dir, files, median)
	userGit(tb, dir, "init", "-q", "-b", "main")
	userGit(tb, dir, "add", "-A")
	userGit(tb, dir, "-c", "gc.auto=0", "commit", "-q", "-m", "generated")
	userGit(tb, dir, "gc", "-q") // packed, as a clone is
	return paths, total
}

// genFiles writes genRepo's files into dir, no repository.
func genFiles(tb testing.TB, dir string, files int, median float64) ([]string, int64) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(26, uint64(files)))
	words := []string{"func", "return", "if", "err", "nil", "the", "context", "package", "value", "type", "struct", "range", "for", "string", "int", "map", "{", "}", "(", ")", ":=", "=", "//", "x", "y", "buf"}
	var text bytes.Buffer
	for text.Len() < 4<<20 {
		n := 3 + rng.IntN(10)
		for range n {
			text.WriteString(words[rng.IntN(len(words))])
			text.WriteByte(' ')
		}
		text.WriteByte('\n')
	}
	src := text.Bytes()
	paths := make([]string, 0, files)
	var total int64
	for i := range files {
		d := i / 20
		rel := filepath.Join(fmt.Sprintf("m%02d", d/400), fmt.Sprintf("p%02d", d/20%20), fmt.Sprintf("d%02d", d%20), fmt.Sprintf("f%06d.go", i))
		abs := filepath.Join(dir, rel)
		if i%20 == 0 {
			os.MkdirAll(filepath.Dir(abs), 0o755)
		}
		size := int(math.Min(median*math.Exp(1.6*rng.NormFloat64()), 1_900_000))
		off := rng.IntN(len(src) - size - 1)
		body := append([]byte(fmt.Sprintf("// %d\n", i)), src[off:off+size]...)
		if err := os.WriteFile(abs, body, 0o644); err != nil {
			tb.Fatal(err)
		}
		paths = append(paths, rel)
		total += int64(len(body))
	}
	return paths, total
}

// timed runs f and returns how long it took.
func timed(tb testing.TB, f func() error) time.Duration {
	tb.Helper()
	start := time.Now()
	if err := f(); err != nil {
		tb.Fatal(err)
	}
	return time.Since(start)
}

// cpuOf runs timed(f) and appends its wall time to wall and the CPU time
// it cost to cpu: user + system of this process (every thread: the
// snapshot's goroutines) and of the children it waited for (git, tar),
// far less moved than wall time by other work on a loaded machine.
func cpuOf(tb testing.TB, wall, cpu *[]time.Duration, f func() error) {
	tb.Helper()
	before := cpuNow()
	*wall = append(*wall, timed(tb, f))
	*cpu = append(*cpu, cpuNow()-before)
}

func cpuNow() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

func run(dir, script string) error {
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", script, err, out)
	}
	return nil
}

func median(d []time.Duration) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[len(s)/2]) / 1e6
}

// BenchmarkCheckpointsVsGit: on a generated 13,000-file, ~143 MB
// repository and a 100,000-file one, interleaved in each round:
//
//   - git-status-ms: `git status --porcelain` (the user's git), the yardstick;
//   - first-ms: a new store's first snapshot of the clean checkout (Open and
//     Take; the target is ≤ 2× git status);
//   - step3-ms: a snapshot after a step changed 3 files (≤ 1.0× git status);
//   - unchanged-ms: a snapshot when nothing changed;
//   - first-full-ms and tar-ms: the first snapshot when the store cannot
//     seed from the repository (as outside git), against `tar c` of the tree
//     read to the end;
//   - rss-added-MiB: peak RSS the first snapshot and a step add, measured in
//     a child process: its own growth (VmHWM − VmRSS before) plus its
//     largest git child's peak (an upper bound: a child's rusage counts
//     its parent's RSS at exec).
func BenchmarkCheckpointsVsGit(b *testing.B) {
	needGit(b)
	for _, tc := range []struct {
		name   string
		files  int
		median float64
	}{{"13k", 13_000, 3_000}, {"100k", 100_000, 600}} {
		b.Run(tc.name, func(b *testing.B) {
			repo := b.TempDir()
			start := time.Now()
			paths, total := genRepo(b, repo, tc.files, tc.median)
			b.Logf("%s: %d files, %.0f MB, generated and committed in %v", tc.name, len(paths), float64(total)/1e6, time.Since(start).Round(time.Millisecond))
			ctx := context.Background()
			stepStore, err := Open(ctx, b.TempDir(), repo, Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := stepStore.Take(ctx, "bench", "first"); err != nil {
				b.Fatal(err)
			}
			var status, first, step, unchanged, full, tar []time.Duration
			var statusCPU, firstCPU, stepCPU, unchangedCPU, fullCPU, tarCPU []time.Duration
			round := 0
			for b.Loop() {
				round++
				cpuOf(b, &status, &statusCPU, func() error { return run(repo, "git status --porcelain >/dev/null") })
				data := b.TempDir()
				cpuOf(b, &first, &firstCPU, func() error {
					s, err := Open(ctx, data, repo, Options{})
					if err == nil {
						_, err = s.Take(ctx, "bench", "first")
					}
					return err
				})
				for k := range 3 {
					p := filepath.Join(repo, paths[(round*7919+k*104729)%len(paths)])
					if err := os.WriteFile(p, []byte(fmt.Sprintf("step %d %d\n", round, k)), 0o644); err != nil {
						b.Fatal(err)
					}
				}
				cpuOf(b, &step, &stepCPU, func() error { _, err := stepStore.Take(ctx, "bench", "step"); return err })
				cpuOf(b, &unchanged, &unchangedCPU, func() error { _, err := stepStore.Take(ctx, "bench", "same"); return err })
				if round <= 2 { // the slow pair, twice
					data := b.TempDir()
					noSeed = true
					cpuOf(b, &full, &fullCPU, func() error {
						s, err := Open(ctx, data, repo, Options{})
						if err == nil {
							_, err = s.Take(ctx, "bench", "first")
						}
						return err
					})
					noSeed = false
					cpuOf(b, &tar, &tarCPU, func() error { return run(repo, "tar c --exclude=.git . | cat >/dev/null") })
				}
			}
			st := median(status)
			b.ReportMetric(st, "git-status-ms")
			b.ReportMetric(median(first), "first-ms")
			b.ReportMetric(median(first)/st, "first/status")
			b.ReportMetric(median(step), "step3-ms")
			b.ReportMetric(median(step)/st, "step3/status")
			b.ReportMetric(median(unchanged), "unchanged-ms")
			b.ReportMetric(median(full), "first-full-ms")
			b.ReportMetric(median(tar), "tar-ms")
			// CPU time (ms), the same runs: what the load moves least.
			b.ReportMetric(median(statusCPU), "git-status-cpu-ms")
			b.ReportMetric(median(firstCPU), "first-cpu-ms")
			b.ReportMetric(median(stepCPU), "step3-cpu-ms")
			b.ReportMetric(median(unchangedCPU), "unchanged-cpu-ms")
			b.ReportMetric(median(fullCPU), "first-full-cpu-ms")
			b.ReportMetric(median(tarCPU), "tar-cpu-ms")
			self, child := rssChild(b, repo)
			b.ReportMetric(self+child, "rss-added-MiB")
			b.Logf("%s: rss added by the agent's side %.1f MiB, largest git child %.1f MiB", tc.name, self, child)
		})
	}
}

// rssChild runs TestSnapshotRSSChild in a child process on repo and returns
// the RSS the snapshots added to it and its largest git child's, in MiB.
func rssChild(b *testing.B, repo string) (self, child float64) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestSnapshotRSSChild$", "-test.v")
	cmd.Env = append(os.Environ(), "AGENT_SNAPSHOT_RSS_REPO="+repo, "AGENT_SNAPSHOT_RSS_DATA="+b.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("rss child: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "rss: "); ok {
			f := strings.Fields(v)
			s, _ := strconv.ParseFloat(f[0], 64)
			c, _ := strconv.ParseFloat(f[1], 64)
			return s, c
		}
	}
	b.Fatalf("rss child said:\n%s", out)
	return 0, 0
}

// TestSnapshotRSSChild is BenchmarkCheckpointsVsGit's child: the first
// snapshot of AGENT_SNAPSHOT_RSS_REPO and a step's, then "rss: <added by
// this process> <largest git child>" in MiB. Skipped otherwise.
func TestSnapshotRSSChild(t *testing.T) {
	repo := os.Getenv("AGENT_SNAPSHOT_RSS_REPO")
	if repo == "" {
		t.Skip("the child of BenchmarkCheckpointsVsGit")
	}
	// VmHWM and VmRSS of /proc/self/status are this process's own: its
	// rusage would include its parent's peak at exec (see bench/rusage).
	runtime.GC()
	before := procStatusKiB(t, "VmRSS")
	ctx := context.Background()
	s, err := Open(ctx, os.Getenv("AGENT_SNAPSHOT_RSS_DATA"), repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(ctx, "rss", "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(ctx, "rss", "step"); err != nil {
		t.Fatal(err)
	}
	self := procStatusKiB(t, "VmHWM") - before
	var ru syscall.Rusage // the largest git child's peak, or this process's RSS when it spawned it
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	fmt.Printf("rss: %.1f %.1f\n", float64(self)/1024, float64(ru.Maxrss)/1024)
}

// procStatusKiB reads a "kB" field of /proc/self/status.
func procStatusKiB(t *testing.T, field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}
