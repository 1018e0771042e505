package snapshot

// firstprof_test.go: BenchmarkFirstSnapshot13k, BenchmarkStep3Files13k
// and BenchmarkGitStatus13k: the first snapshot of a 13,000-file checkout
// (BenchmarkCheckpointsVsGit's tree), a 3-file step and `git status`
// alone, each with its CPU time, for CPU profiles (-cpuprofile) and
// before/after pairs: BenchmarkCheckpointsVsGit interleaves them with git
// and tar. They run only with AGENT_BENCH_REPO set: the tree is generated
// there once and kept for later runs (`make bench` skips them).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func benchRepo13k(b *testing.B) (string, []string) {
	needGit(b)
	repo := os.Getenv("AGENT_BENCH_REPO")
	if repo == "" {
		b.Skip("AGENT_BENCH_REPO=<dir> runs it (the tree generated there once, kept)")
	}
	list := filepath.Join(repo, ".git", "agent-bench-paths")
	if _, err := os.Stat(list); err != nil {
		os.MkdirAll(repo, 0o755)
		paths, _ := genRepo(b, repo, 13_000, 3_000)
		var buf []byte
		for _, p := range paths {
			buf = append(buf, p...)
			buf = append(buf, '\n')
		}
		if err := os.WriteFile(list, buf, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	data, err := os.ReadFile(list)
	if err != nil {
		b.Fatal(err)
	}
	var paths []string
	for len(data) > 0 {
		i := 0
		for data[i] != '\n' {
			i++
		}
		paths = append(paths, string(data[:i]))
		data = data[i+1:]
	}
	return repo, paths
}

// BenchmarkFirstSnapshot13k: six files differ from the user's index, as in
// BenchmarkCheckpointsVsGit's later rounds.
func BenchmarkFirstSnapshot13k(b *testing.B) {
	repo, paths := benchRepo13k(b)
	for k := range 6 {
		p := filepath.Join(repo, paths[(k*7919+104729)%len(paths)])
		if err := os.WriteFile(p, []byte(fmt.Sprintf("dirty %d\n", k)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	benchNewStores(b, repo)
}

func BenchmarkStep3Files13k(b *testing.B) {
	repo, paths := benchRepo13k(b)
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir(), repo, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Take(ctx, "bench", "first"); err != nil {
		b.Fatal(err)
	}
	round := 0
	cpu := cpuNow()
	for b.Loop() {
		round++
		for k := range 3 {
			p := filepath.Join(repo, paths[(round*7919+k*104729)%len(paths)])
			if err := os.WriteFile(p, []byte(fmt.Sprintf("step %d %d\n", round, k)), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := s.Take(ctx, "bench", "step"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuNow()-cpu)/1e6/float64(b.N), "cpu-ms/op")
}

// BenchmarkGitStatus13k is the yardstick on the same tree: `git status
// --porcelain`, its CPU that of the child.
func BenchmarkGitStatus13k(b *testing.B) {
	repo, _ := benchRepo13k(b)
	cpu := cpuNow()
	for b.Loop() {
		if err := run(repo, "git status --porcelain >/dev/null"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuNow()-cpu)/1e6/float64(b.N), "cpu-ms/op")
}

// BenchmarkNewStore: a new store's creation and its first snapshot of a
// 3-file repository, where the store's own files (the repository made,
// its excludes, index, dircache, pack or loose objects, ref) are all the
// work: what every first snapshot pays besides its walk.
func BenchmarkNewStore(b *testing.B) {
	needGit(b)
	repo := b.TempDir()
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(name+"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := run(repo, "git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm init"); err != nil {
		b.Fatal(err)
	}
	benchNewStores(b, repo)
}

// benchNewStores times a new store's Open and first snapshot of repo,
// b.N times, and reports their CPU time too.
func benchNewStores(b *testing.B, repo string) {
	ctx := context.Background()
	cpu := cpuNow()
	for b.Loop() {
		s, err := Open(ctx, b.TempDir(), repo, Options{})
		if err == nil {
			_, err = s.Take(ctx, "bench", "first")
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuNow()-cpu)/1e6/float64(b.N), "cpu-ms/op")
}
