package commands

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A project's command file that is a link out of the project (to a key,
// to /proc/self/environ, to /dev/zero), a FIFO or too large is not used,
// with a notice naming it, within a second.
func TestCatalogCommandFilesFollowTheToolsRules(t *testing.T) {
	tr := newTree(t)
	pc := filepath.Join(tr.project, ".agent", "commands")
	secret := filepath.Join(t.TempDir(), "id_rsa")
	write(t, secret, "PRIVATE-KEY")
	write(t, filepath.Join(pc, "big.md"), strings.Repeat("x", MaxFileBytes+1))
	for link, target := range map[string]string{"key.md": secret, "environ.md": "/proc/self/environ", "zero.md": "/dev/zero"} {
		if err := os.Symlink(target, filepath.Join(pc, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(pc, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan Set, 1)
	go func() { done <- NewCatalog(tr.roots(), nil).Load() }()
	var set Set
	select {
	case set = <-done:
	case <-time.After(time.Second):
		t.Fatal("Load did not return within 1s")
	}
	if len(set.Commands) != 0 {
		t.Errorf("commands used: %q", names(set))
	}
	all := strings.Join(set.Notices, "\n")
	for _, name := range []string{"key.md", "environ.md", "zero.md", "fifo.md", "big.md"} {
		if !strings.Contains(all, filepath.Join(pc, name)+" is not used: ") {
			t.Errorf("no notice for %s in:\n%s", name, all)
		}
	}
}

// The read itself is non-blocking: a command file that passed the checks
// and became a FIFO before it was opened is refused, not waited on.
func TestCatalogReadDoesNotBlockOnAFIFOSwappedIn(t *testing.T) {
	tr := newTree(t)
	pc := filepath.Join(tr.project, ".agent", "commands")
	path := filepath.Join(pc, "swap.md")
	write(t, path, "fine")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	c := NewCatalog(tr.roots(), nil)
	done := make(chan string, 1)
	go func() {
		_, notice := c.readChecked(found{path: path, rel: "swap.md"}, fi, filepath.Dir(filepath.Dir(pc)))
		done <- notice
	}()
	select {
	case notice := <-done:
		if !strings.Contains(notice, "not a regular file") {
			t.Errorf("notice = %q", notice)
		}
	case <-time.After(time.Second):
		t.Fatal("the read blocked on a FIFO")
	}
}
