package snapshot

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// gatedWriter passes writes to w once open is closed; until then they wait.
type gatedWriter struct {
	w    io.Writer
	open chan struct{}
}

func (g *gatedWriter) Write(b []byte) (int, error) {
	<-g.open
	return g.w.Write(b)
}

// TestPlannedPackPutDoesNotWaitForItsWrite: a first snapshot's pack
// (planned) is written and hashed on its own goroutine: a put returns
// once its entry is queued, while the file's writes still wait, so the
// hashers are not held by the pack's SHA-1 and writes; what was queued
// is all written, in order, and git verifies the pack.
func TestPlannedPackPutDoesNotWaitForItsWrite(t *testing.T) {
	needGit(t)
	gitDir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", "--bare", gitDir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	const n = 40
	p, err := newPackWriter(gitDir, nil, n)
	if err != nil {
		t.Fatal(err)
	}
	gate := &gatedWriter{w: p.f, open: make(chan struct{})}
	p.bw.Flush() // the header
	p.bw = bufio.NewWriterSize(gate, 16)
	puts := make(chan error)
	go func() {
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := w; i < n; i += 4 {
					if _, err := p.put("blob", []byte(fmt.Sprintf("object %d, long enough to pass a 16-byte buffer\n", i))); err != nil {
						puts <- err
					}
				}
			})
		}
		wg.Wait()
		close(puts)
	}()
	select {
	case err := <-puts:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		close(gate.open)
		t.Fatal("puts wait for the pack's file to be written")
	}
	close(gate.open)
	if err := p.finish(); err != nil {
		t.Fatal(err)
	}
	idx, _ := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("%d packs; want 1", len(idx))
	}
	out, err := exec.Command("git", "--git-dir", gitDir, "verify-pack", "-v", idx[0]).CombinedOutput()
	if err != nil {
		t.Fatalf("verify-pack: %v\n%s", err, out)
	}
}

// TestPackPipeIsBounded: the writer's queue holds at most pipeBudget
// bytes (one larger entry alone): a send past it waits until the writer
// has written what came before, and every buffer is released once.
func TestPackPipeIsBounded(t *testing.T) {
	var sink bytes.Buffer
	gate := &gatedWriter{w: &sink, open: make(chan struct{})}
	p := &packWriter{bw: bufio.NewWriterSize(gate, 16)}
	q := startPipe(p)
	var released atomic.Int64
	big := make([]byte, pipeBudget/3+1)                                // three: a byte over
	if err := q.send(big, 0, func() { released.Add(1) }); err != nil { // taken by the writer, waits at the gate
		t.Fatal(err)
	}
	if err := q.send(big, 0, func() { released.Add(1) }); err != nil { // queued: two thirds and two bytes
		t.Fatal(err)
	}
	third := make(chan error)
	go func() { third <- q.send(big, 0, func() { released.Add(1) }) }()
	select {
	case err := <-third:
		t.Fatalf("a send past the budget returned (%v) while %d bytes wait", err, 2*len(big))
	case <-time.After(100 * time.Millisecond):
	}
	close(gate.open)
	if err := <-third; err != nil {
		t.Fatal(err)
	}
	if err := q.drain(); err != nil {
		t.Fatal(err)
	}
	p.bw.Flush()
	if sink.Len() != 3*len(big) || released.Load() != 3 {
		t.Errorf("%d bytes written, %d released; want %d, 3", sink.Len(), released.Load(), 3*len(big))
	}
	if err := q.send(big, 0, func() { released.Add(1) }); err == nil || released.Load() != 4 {
		t.Errorf("a send after drain: %v, released %d times", err, released.Load())
	}
}

// errNoSpace is failingWriter's error.
var errNoSpace = errors.New("no space left on device")

// failingWriter fails every write: a full disk.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errNoSpace }

// TestPlannedPackWriteErrorLeavesNoPack: a write that fails on the pack's
// writer goroutine fails finish with its error, and leaves no pack,
// temporary or named, behind.
func TestPlannedPackWriteErrorLeavesNoPack(t *testing.T) {
	gitDir := t.TempDir()
	p, err := newPackWriter(gitDir, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	p.bw.Flush()
	p.bw = bufio.NewWriterSize(failingWriter{}, 16)
	for i := range 10 {
		if _, err := p.put("blob", []byte(fmt.Sprintf("object %d, long enough to pass a 16-byte buffer\n", i))); err != nil && !errors.Is(err, errNoSpace) {
			t.Fatal(err)
		}
	}
	if err := p.finish(); !errors.Is(err, errNoSpace) {
		t.Errorf("finish: %v; want the write's error", err)
	}
	left, _ := os.ReadDir(filepath.Join(gitDir, "objects", "pack"))
	for _, e := range left {
		t.Errorf("left behind: %s", e.Name())
	}
}
