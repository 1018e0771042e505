package gitcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

func hooksReads() int {
	hooksCache.Lock()
	defer hooksCache.Unlock()
	return hooksCache.reads
}

// TestCachedHooksPathSeesAChange: a second ask reads no configuration,
// and a change to the repository's config, the global one, or a new
// repository in the directory is seen at the next ask.
func TestCachedHooksPathSeesAChange(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the repository is not discovered without git here")
	}
	repo, env := configHome(t, map[string]string{"REPO": repoConfig + "\thooksPath = one\n"})
	home := filepath.Dir(repo)
	ask := func(dir, want string) {
		t.Helper()
		got, ok := CachedHooksPath(dir, env)
		if !ok || got != want {
			t.Fatalf("CachedHooksPath = %q, %v; want %q", got, ok, want)
		}
		if direct, _ := HooksPath(dir, env); direct != got {
			t.Fatalf("CachedHooksPath = %q, HooksPath = %q", got, direct)
		}
	}
	ask(repo, filepath.Join(repo, "one"))
	reads := hooksReads()
	ask(repo, filepath.Join(repo, "one"))
	if n := hooksReads() - reads; n != 0 {
		t.Fatalf("the second ask read the configuration again (%d reads)", n)
	}
	// The repository's config changes (same size: the stat still shows it).
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(repo, ".git", "config"), repoConfig+"\thooksPath = two\n")
	ask(repo, filepath.Join(repo, "two"))
	// The global config sets it and the repository's no longer does.
	write(filepath.Join(repo, ".git", "config"), repoConfig)
	write(filepath.Join(home, ".gitconfig"), "[core]\n\thooksPath = /opt/global\n")
	ask(repo, "/opt/global")
	// A directory in no repository becomes one with its own hooks path.
	plain := filepath.Join(t.TempDir(), "plain")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(home, ".gitconfig"))
	ask(plain, "")
	cmd := exec.Command("git", "init", "-q", plain)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	write(filepath.Join(plain, ".git", "config"), repoConfig+"\thooksPath = h\n")
	ask(plain, filepath.Join(plain, "h"))
}

func BenchmarkHooksPath(b *testing.B) {
	dir := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	env := environ(os.Environ())
	b.Run("uncached", func(b *testing.B) {
		for b.Loop() {
			HooksPath(dir, env)
		}
	})
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			CachedHooksPath(dir, env)
		}
	})
}
