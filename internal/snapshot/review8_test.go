//go:build linux

package snapshot

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// A bound that found the collector off (startheap.go's relaxStartupGC:
// off until the first tool call, or until a collection under the
// startup memory limit) changed nothing; if the owner turns the
// collector back on while the bound is in force, the bound's end must
// not turn it off again (with the memory limit restored too, nothing
// would ever collect).
func TestReview8BoundEndKeepsAnotherOwnersPercent(t *testing.T) {
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	end := boundGC(gcBoundMin) // found off: left off
	debug.SetGCPercent(100)    // startheap.go's restore, meanwhile
	end()
	if got := debug.SetGCPercent(old); got != 100 {
		t.Fatalf("after the bound's end GOGC is %d; the owner had set 100 during it", got)
	}
}

// Once a first snapshot's files are read, dropFreeEntries leaves the
// kept buffers to the collector (entryfree.go: "the process after it
// need not hold 4 MiB free"). The entries still queued in the packs'
// pipes (packpipe.go, up to pipeBudget) are released after the drop,
// and putEntry keeps them again: held after the snapshot.
func TestReview8NoEntriesKeptAfterAFirstSnapshot(t *testing.T) {
	needGit(t)
	resetEntryFree(t)
	t.Cleanup(func() { resetEntryFree(t) })
	ctx := context.Background()
	work := t.TempDir()
	body := make([]byte, 60_000)
	for i := range 400 {
		d := filepath.Join(work, fmt.Sprintf("d%02d", i%20))
		os.MkdirAll(d, 0o755)
		copy(body, fmt.Sprintf("file %d\n", i))
		for j := 16; j < len(body); j++ {
			body[j] = byte('a' + (i*7+j)%26)
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%03d", i)), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(ctx, t.TempDir(), work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(ctx, "ses1", "first"); err != nil {
		t.Fatal(err)
	}
	entryFree.mu.Lock()
	kept := entryFree.bytes
	entryFree.mu.Unlock()
	if kept != 0 {
		t.Fatalf("%d bytes of entry buffers kept free after the first snapshot", kept)
	}
}

// The package builds for macOS (README: the sandbox-exec sandbox; the
// walk's *_other.go files): changeset.go, untagged, names change, which
// goindex.go (linux only) declares. At 12f92fb it built.
func TestReview8BuildsForDarwin(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the package")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command(gobin, "build", "-o", os.DevNull, ".")
	cmd.Env = append(os.Environ(), "GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=darwin go build: %v\n%s", err, out)
	}
}
