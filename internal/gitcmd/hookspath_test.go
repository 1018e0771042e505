package gitcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gitHooksDir is where git itself runs dir's hooks from (absolute).
func gitHooksDir(t *testing.T, dir string, env []string) string {
	t.Helper()
	cmd := exec.Command("git", "rev-parse", "--git-path", "hooks")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git rev-parse --git-path hooks: %v", err)
	}
	p := strings.TrimSuffix(string(out), "\n")
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// TestHooksPathIsGits: whenever HooksPath names a directory, it is the one
// git runs the hooks from; "" only when git uses .git/hooks.
func TestHooksPathIsGits(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the repository is not discovered without git here")
	}
	tests := []struct {
		name  string
		files map[string]string
		sub   string // where to ask from, under the repository
	}{
		{"unset", map[string]string{"REPO": repoConfig}, ""},
		{"relative", map[string]string{"REPO": repoConfig + "\thooksPath = tools/hooks\n"}, ""},
		{"relative, asked from below", map[string]string{"REPO": repoConfig + "\thooksPath = tools/hooks\n"}, "a/b"},
		{"quoted, with a comment", map[string]string{"REPO": repoConfig + "\thooksPath = \"my hooks\"  ; the team's\n"}, ""},
		{"section named in capitals", map[string]string{"REPO": repoConfig + "[CORE]\n\tHooksPath = .githooks\n"}, ""},
		{"absolute", map[string]string{"REPO": repoConfig + "\thooksPath = /opt/hooks\n"}, ""},
		{"home", map[string]string{"REPO": repoConfig + "\thooksPath = ~/hooks\n"}, ""},
		{"global only", map[string]string{"REPO": repoConfig, ".gitconfig": "[core]\n\thooksPath = ~/global-hooks\n"}, ""},
		{"the repository's wins", map[string]string{"REPO": repoConfig + "\thooksPath = .husky/_\n", ".gitconfig": "[core]\n\thooksPath = ~/global-hooks\n"}, ""},
		{"the last wins", map[string]string{"REPO": repoConfig + "\thooksPath = one\n[core]\n\thooksPath = two\n"}, ""},
		{"an include is not followed, the rest is read", map[string]string{"REPO": repoConfig + "\thooksPath = .githooks\n", ".gitconfig": "[include]\n\tpath = other\n"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo, env := configHome(t, tc.files)
			dir := filepath.Join(repo, tc.sub)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			got, ok := HooksPath(dir, env)
			if !ok {
				t.Fatalf("HooksPath unknown")
			}
			want := gitHooksDir(t, dir, env)
			if got == "" {
				if want != filepath.Join(repo, ".git", "hooks") {
					t.Errorf("HooksPath = \"\", git runs hooks from %s", want)
				}
				return
			}
			if got != want {
				t.Errorf("HooksPath = %s, git runs hooks from %s", got, want)
			}
		})
	}

	t.Run("no repository", func(t *testing.T) {
		_, env := configHome(t, map[string]string{".gitconfig": "[core]\n\thooksPath = ~/h\n"})
		if got, ok := HooksPath(t.TempDir(), env); got != "" || !ok {
			t.Errorf("HooksPath = %q, %v outside any repository", got, ok)
		}
	})
	t.Run("a variable that moves nothing", func(t *testing.T) {
		repo, env := configHome(t, map[string]string{"REPO": repoConfig + "\thooksPath = h\n"})
		if got, ok := HooksPath(repo, append(env, "GIT_SSL_CAINFO=/etc/ssl/ca.pem", "GIT_EDITOR=vi")); got != filepath.Join(repo, "h") || !ok {
			t.Errorf("HooksPath = %q, %v", got, ok)
		}
	})
	for _, extra := range []string{"GIT_DIR=/elsewhere", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_COUNT=1"} {
		t.Run(extra, func(t *testing.T) {
			repo, env := configHome(t, map[string]string{"REPO": repoConfig + "\thooksPath = h\n"})
			if got, ok := HooksPath(repo, append(env, extra)); ok {
				t.Errorf("answered %q with %s in git's environment", got, extra)
			}
		})
	}
}

// TestHooksPathDoesNotBlockOnAFIFOConfig: a repository whose .git/config is
// a FIFO answers "unknown" at once instead of hanging the permission check
// of every write.
func TestHooksPathDoesNotBlockOnAFIFOConfig(t *testing.T) {
	repo, env := configHome(t, map[string]string{})
	config := filepath.Join(repo, ".git", "config")
	if err := os.Remove(config); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(config, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan bool, 1)
	go func() { _, ok := HooksPath(repo, env); done <- ok }()
	select {
	case ok := <-done:
		if ok {
			t.Errorf("HooksPath known with a FIFO for .git/config")
		}
	case <-time.After(5 * time.Second):
		// Open a writer so the blocked reader (and the test) can end.
		if f, err := os.OpenFile(config, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("HooksPath blocked on a FIFO .git/config")
	}
}
