//go:build linux

package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestHashAllHasNoChunkBarrier: a path of the first chunk still being
// hashed does not hold back the paths of the next chunks (a first
// snapshot's pack writers are fed without a pause), and progress is
// reported as chunks finish, in any order.
func TestHashAllHasNoChunkBarrier(t *testing.T) {
	dir := t.TempDir()
	n := 3*progressChunk + 7
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("f%05d", i)
		if err := os.WriteFile(filepath.Join(dir, paths[i]), []byte(paths[i]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	later := make(chan struct{}) // closed when the last chunk's path is hashed
	var once sync.Once
	put := &blobPut{file: func(p string, fd int, st *syscall.Stat_t, max int64) ([20]byte, error, error) {
		switch p {
		case paths[0]:
			select {
			case <-later:
			case <-time.After(10 * time.Second):
				return [20]byte{}, nil, fmt.Errorf("%s waited for %s: the chunks take turns", p, paths[n-1])
			}
		case paths[n-1]:
			once.Do(func() { close(later) })
		}
		var oid [20]byte
		copy(oid[:], p)
		return oid, nil, nil
	}}
	var reports [][2]int
	restore := TuneProgress(progressChunk, 0, 0)
	defer restore()
	rep := progressOf(WithProgress(context.Background(), func(done, total int) { reports = append(reports, [2]int{done, total}) }, nil), time.Now())
	g := &goPath{workTree: dir, maxBytes: 1 << 20}
	changes := newChangeSet(paths, nil)
	var skipped []Skip
	if err := g.hashAll(paths, changes, &skipped, rep, put); err != nil {
		t.Fatal(err)
	}
	if len(changes.paths) != n || len(skipped) != 0 {
		t.Fatalf("%d changes, %d skipped; want %d, 0", len(changes.paths), len(skipped), n)
	}
	for _, p := range paths {
		if c := changes.at(p); c == nil || c.gone || string(c.oid[:len(p)]) != p {
			t.Fatalf("%s: %+v", p, c)
		}
	}
	if len(reports) == 0 || reports[len(reports)-1] != [2]int{n, n} {
		t.Fatalf("reports %v: want the last %d/%d", reports, n, n)
	}
}

// TestHashAllStopsWhenSkipped: a skip ends the hashing with ErrSkipped
// before every path is read.
func TestHashAllStopsWhenSkipped(t *testing.T) {
	dir := t.TempDir()
	n := 4 * progressChunk
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("f%05d", i)
		if err := os.WriteFile(filepath.Join(dir, paths[i]), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	skip := make(chan struct{})
	var mu sync.Mutex
	hashed := 0
	put := &blobPut{file: func(p string, fd int, st *syscall.Stat_t, max int64) ([20]byte, error, error) {
		mu.Lock()
		defer mu.Unlock()
		if hashed++; hashed == progressChunk/2 {
			close(skip)
		}
		return [20]byte{}, nil, nil
	}}
	rep := progressOf(WithProgress(context.Background(), func(int, int) {}, skip), time.Now())
	g := &goPath{workTree: dir, maxBytes: 1 << 20}
	err := g.hashAll(paths, newChangeSet(paths, nil), new([]Skip), rep, put)
	if err != ErrSkipped {
		t.Fatalf("err %v, want ErrSkipped", err)
	}
	if hashed >= n {
		t.Fatalf("all %d paths hashed after the skip", hashed)
	}
}
