package approval

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Domains remembers per tool and host in the data dir's file, across
// stores (processes); a nil store remembers nothing.
func TestDomainsRemembered(t *testing.T) {
	dir := t.TempDir()
	d := Domains{Store: Open(dir)}
	if d.Remembered("web_fetch", "go.dev") {
		t.Fatal("remembered before")
	}
	if err := d.Remember("web_fetch", "go.dev"); err != nil {
		t.Fatal(err)
	}
	again := Domains{Store: Open(dir)}
	if !again.Remembered("web_fetch", "go.dev") || again.Remembered("web_fetch", "pkg.go.dev") || again.Remembered("web_search", "go.dev") {
		t.Error("wrong memory")
	}
	if (Domains{}).Remembered("web_fetch", "go.dev") || (Domains{}).Remember("web_fetch", "go.dev") != nil {
		t.Error("a nil store")
	}
}

// The approvals file is read by internal/safefile's rules: a FIFO in its
// place (web_fetch asks the store on every call) is refused at once
// rather than blocking the call forever.
func TestApprovalsFileIsReadSafely(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, FileName), 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	done := make(chan bool, 1)
	go func() { done <- (Domains{Store: Open(dir)}).Remembered("web_fetch", "docs.python.org") }()
	select {
	case got := <-done:
		if got {
			t.Error("Remembered = true from a FIFO")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Remembered blocked on a FIFO in the approvals file's place")
	}
}
