package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSeedingDoesNotBlockOnAHostileRepository: the first snapshot of a
// repository reads the user's .git/index for the seed, and the budget
// reads its header. A repository whose index is a FIFO or a link to a
// device must not hang either: it is read by the tools' rules (safefile),
// and a refused file means no seed, not a wait. (A FIFO commondir or
// config still hangs the store's Open, in the git it runs for the user's
// excludes file: not the seed's doing.)
func TestSeedingDoesNotBlockOnAHostileRepository(t *testing.T) {
	needGit(t)
	for _, name := range []string{"fifo", "device"} {
		t.Run(name, func(t *testing.T) {
			repo := t.TempDir()
			genTree(t, repo, 5)
			userGit(t, repo, "init", "-q", "-b", "main")
			userGit(t, repo, "add", "-A")
			userGit(t, repo, "commit", "-q", "-m", "init")
			fifo := filepath.Join(repo, ".git", "index")
			os.Remove(fifo)
			if name == "device" {
				if err := os.Symlink("/dev/zero", fifo); err != nil {
					t.Fatal(err)
				}
			} else if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			// A writer that never writes would keep a reader waiting; open
			// one at the end so a blocked read (and the test) can finish.
			defer func() {
				if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			}()
			s := openStore(t, repo)
			done := make(chan error, 1)
			go func() {
				FileCount(s)
				_, err := s.Take(context.Background(), "ses1", "before")
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("take: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("blocked on a .git/index that is a %s", name)
			}
		})
	}
}
