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
	if text, ok := readSmall("/proc/self/status"); ok {
		t.Errorf("readSmall(/proc/self/status) = %d bytes, want refused", len(text))
	}
	p := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(p, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if text, ok := readSmall(p); !ok || text != "hello\n" {
		t.Errorf("readSmall(a regular file) = %q, %v", text, ok)
	}
	if _, ok := readSmall(filepath.Join(t.TempDir(), "missing")); ok {
		t.Error("readSmall(a missing file) = ok")
	}
}
