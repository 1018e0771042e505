package gitcmd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestUserExcludesFileDoesNotReadTheRepository: the user's excludes file is
// read from the global configuration files alone. A repository whose
// .git/commondir is a FIFO (git opens it while it discovers the
// repository, even for `git config --global`) must not hang it.
func TestUserExcludesFileDoesNotReadTheRepository(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	os.Unsetenv("GIT_CONFIG_GLOBAL")
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\texcludesFile = ~/global-ignore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, ".git", "commondir"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	t.Chdir(dir) // git would discover the repository from here
	start := time.Now()
	got := UserExcludesFile(ctx)
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("UserExcludesFile took %s on a repository with a FIFO commondir", took)
	}
	if want := filepath.Join(home, "global-ignore"); got != want {
		t.Fatalf("UserExcludesFile = %q, want %q", got, want)
	}
}

// TestUserExcludesFileFollowsGit: the files git reads (XDG, then
// ~/.gitconfig, the last setting winning; a plain include; GIT_CONFIG_GLOBAL),
// and what it does not (none set, a FIFO as the global file).
func TestUserExcludesFileFollowsGit(t *testing.T) {
	write := func(t *testing.T, path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, home string)
		want  string // relative to home, "" for none
	}{
		{"none", func(t *testing.T, home string) {}, ""},
		{"xdg only", func(t *testing.T, home string) {
			write(t, filepath.Join(home, ".config", "git", "config"), "[core]\nexcludesfile = /abs/ignore\n")
		}, "/abs/ignore"},
		{"gitconfig wins over xdg", func(t *testing.T, home string) {
			write(t, filepath.Join(home, ".config", "git", "config"), "[core]\nexcludesfile = /xdg\n")
			write(t, filepath.Join(home, ".gitconfig"), "[core]\nexcludesFile = ~/home-ignore\n")
		}, "home-ignore"},
		{"include", func(t *testing.T, home string) {
			write(t, filepath.Join(home, ".gitconfig"), "[include]\npath = more.inc\n")
			write(t, filepath.Join(home, "more.inc"), "[core]\nexcludesFile = ~/inc-ignore\n")
		}, "inc-ignore"},
		{"GIT_CONFIG_GLOBAL", func(t *testing.T, home string) {
			write(t, filepath.Join(home, ".gitconfig"), "[core]\nexcludesFile = ~/home-ignore\n")
			write(t, filepath.Join(home, "other"), "[core]\nexcludesFile = ~/other-ignore\n")
			t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "other"))
		}, "other-ignore"},
		{"fifo global file", func(t *testing.T, home string) {
			if err := syscall.Mkfifo(filepath.Join(home, ".gitconfig"), 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", "")
			t.Setenv("GIT_CONFIG_GLOBAL", "")
			os.Unsetenv("GIT_CONFIG_GLOBAL")
			tt.setup(t, home)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			want := tt.want
			if want != "" && !filepath.IsAbs(want) {
				want = filepath.Join(home, want)
			}
			if got := UserExcludesFile(ctx); got != want {
				t.Fatalf("UserExcludesFile = %q, want %q", got, want)
			}
		})
	}
}
