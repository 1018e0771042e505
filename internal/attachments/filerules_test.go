package attachments

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An image path that is a FIFO or a device is refused at once, never
// waited on or read without end; a directory is refused as before.
func TestReadImageRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "shot.png")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.png")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, zero, dir} {
		done := make(chan error, 1)
		go func() { _, _, err := ReadImage(path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "image "+path+": ") || !strings.Contains(err.Error(), "not a regular file") && !strings.Contains(err.Error(), "directory") {
				t.Errorf("ReadImage(%s): %v", path, err)
			}
		case <-time.After(time.Second):
			t.Fatalf("ReadImage(%s) did not return within 1s", path)
		}
	}
	big := filepath.Join(dir, "big.png")
	os.WriteFile(big, nil, 0o644)
	os.Truncate(big, MaxImageBytes+1)
	if _, _, err := ReadImage(big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadImage(big): %v", err)
	}
}
