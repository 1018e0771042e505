package snapshot

// fullstore_bench_test.go: the first snapshot outside git (every file
// read, hashed and stored) against `tar c` of the same plain directory,
// interleaved in each round (issue 26, "outside git ≤ 1.0× tar c").
// AGENT_SNAPSHOT_BENCH_TREE names a directory to keep the generated tree
// in between runs (made when missing); else it is generated in the
// benchmark's temporary directory.

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkFirstFullVsTar: first-full-ms and tar-ms (and their CPU time)
// on genRepo's 13,000 files (~143 MB) written without a repository.
func BenchmarkFirstFullVsTar(b *testing.B) {
	needGit(b)
	tree := os.Getenv("AGENT_SNAPSHOT_BENCH_TREE")
	if tree == "" {
		tree = b.TempDir()
	}
	if _, err := os.Stat(filepath.Join(tree, ".complete")); err != nil {
		start := time.Now()
		genFiles(b, tree, 13_000, 3_000)
		if err := os.WriteFile(filepath.Join(tree, ".complete"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Logf("generated in %v", time.Since(start).Round(time.Millisecond))
	}
	ctx := context.Background()
	var full, tar, fullCPU, tarCPU []time.Duration
	for b.Loop() {
		data := b.TempDir()
		cpuOf(b, &full, &fullCPU, func() error {
			s, err := Open(ctx, data, tree, Options{})
			if err == nil {
				_, err = s.Take(ctx, "bench", "first")
			}
			return err
		})
		cpuOf(b, &tar, &tarCPU, func() error { return run(tree, "tar c --exclude=.git . | cat >/dev/null") })
		os.RemoveAll(data)
	}
	b.ReportMetric(median(full), "first-full-ms")
	b.ReportMetric(median(tar), "tar-ms")
	b.ReportMetric(median(fullCPU), "first-full-cpu-ms")
	b.ReportMetric(median(tarCPU), "tar-cpu-ms")
	b.ReportMetric(median(full)/median(tar), "full/tar")
}
