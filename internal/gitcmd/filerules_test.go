package gitcmd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A repository whose .git/config is a link out of .git, /dev/zero, a FIFO
// or huge gets no git run for the agent: Output says why, within a second,
// instead of reading without end or blocking (the agent's reading and
// git's own).
func TestOutputRefusesAHostileRepositoryConfig(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, kind := range []string{"link-outside", "proc-environ", "dev-zero", "fifo", "oversize"} {
		t.Run(kind, func(t *testing.T) {
			repo, _ := configHome(t, nil)
			path := filepath.Join(repo, ".git", "config")
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			var err error
			switch kind {
			case "link-outside":
				secret := filepath.Join(t.TempDir(), "config")
				if err := os.WriteFile(secret, []byte("[core]\n\tbare = false\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				err = os.Symlink(secret, path)
			case "proc-environ":
				err = os.Symlink("/proc/self/environ", path)
			case "dev-zero":
				err = os.Symlink("/dev/zero", path)
			case "fifo":
				err = syscall.Mkfifo(path, 0o644)
			case "oversize":
				err = os.WriteFile(path, []byte("[core]\n"+strings.Repeat("# padding\n", maxConfigFile/10+1)), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			start := time.Now()
			_, err = Output(ctx, repo, "status", "--porcelain")
			if d := time.Since(start); d > time.Second {
				t.Errorf("Output took %v", d)
			}
			var refused *RepoConfigError
			if !errors.As(err, &refused) || !strings.HasPrefix(refused.Warning, path+" is skipped: ") {
				t.Errorf("Output: %v; want the refusal naming %s", err, path)
			}
		})
	}
}
