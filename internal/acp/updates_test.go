package acp

import (
	"os"
	"path/filepath"
	"testing"
)

// The file a write or edit's diff is worked out from is read by
// internal/safefile's rules: a kernel pseudo-file (which says size 0 and
// may hold the process's secrets, /proc/self/environ) is not read into a
// diff, a FIFO does not block the observer, a regular file is read.
func TestDiffFileIsReadSafely(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	if text, _, err := readSmall("/proc/self/status"); err == nil {
		t.Errorf("readSmall(/proc/self/status) = %d bytes, want refused", len(text))
	}
	p := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(p, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if text, exists, err := readSmall(p); err != nil || !exists || text != "hello\n" {
		t.Errorf("readSmall(a regular file) = %q, %v, %v", text, exists, err)
	}
	if _, exists, err := readSmall(filepath.Join(t.TempDir(), "missing")); exists || err != nil {
		t.Errorf("readSmall(a missing file) = %v, %v; want no file, no error", exists, err)
	}
}
