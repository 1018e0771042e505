package gitcmd

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// gitFilterKeys is what git itself lists: the answer knownFilterKeys must
// give whenever it gives one. ok is false when git fails (a configuration
// it refuses).
func gitFilterKeys(t *testing.T, dir string, env []string) (string, bool) {
	t.Helper()
	cmd := exec.Command("git", "config", "--name-only", "--get-regexp", `^filter\.`)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 { // no key matched
		return "", true
	}
	return string(out), err == nil
}

// configHome makes a home directory and a repository in it; files maps
// a path under the home ("REPO" for the repository's .git/config) to its
// contents. It returns the repository and the environment git gets.
func configHome(t *testing.T, files map[string]string) (repo string, env []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	home := t.TempDir()
	repo = filepath.Join(home, "repo")
	cmd := exec.Command("git", "init", "-q", repo)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for name, text := range files {
		path := filepath.Join(home, name)
		if name == "REPO" {
			path = filepath.Join(repo, ".git", "config")
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo, environ([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home})
}

// repoConfig is what git init writes, before a case's own text.
const repoConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"

func TestKnownFilterKeysAreGits(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the filter drivers are always asked of git here")
	}
	cases := []struct {
		name  string
		files map[string]string
		// fallback: knownFilterKeys must not answer (git is asked).
		fallback bool
	}{
		{name: "no filter", files: map[string]string{"REPO": repoConfig}},
		{name: "lfs", files: map[string]string{"REPO": repoConfig + "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n"}},
		{name: "section case", files: map[string]string{"REPO": repoConfig + "[FiLtEr \"MiXed\"]\n\tCLEAN = x\n\tProcess=y\n"}},
		{name: "legacy form", files: map[string]string{"REPO": repoConfig + "[filter.Legacy]\n\tclean = x\n[Filter.a.B]\nsmudge\n"}},
		{name: "dotted base", files: map[string]string{"REPO": repoConfig + "[filter.a \"b\"]\n\tclean = x\n"}},
		{name: "one line", files: map[string]string{"REPO": repoConfig + "[filter \"a.b\"] clean = x\n[filter \"c\"]process=y;z\n"}},
		{name: "blanks", files: map[string]string{"REPO": repoConfig + "   [filter  \t \"sp ace\"]  \n  \tclean\t=\tx  \n\t\n"}},
		{name: "empty driver", files: map[string]string{"REPO": repoConfig + "[filter \"\"]\n\tclean = x\n[filter]\n\tclean = y\n"}},
		{name: "odd subsection", files: map[string]string{"REPO": repoConfig + "[filter \"a]b;#[c\"]\n\tclean = x\n[filter \"ünï cödé\"]\n\tsmudge = y\n[filter \"=\"]\n\trequired\n"}},
		{name: "key chars", files: map[string]string{"REPO": repoConfig + "[filter \"x\"]\n\tclean-2 = y\n\tA1-b = z\n"}},
		{name: "comments", files: map[string]string{"REPO": repoConfig + "# [filter \"c1\"]\n; [filter \"c2\"]\n[core] # [filter \"c3\"]\n\teditor = vi ; [filter \"c4\"]\n"}},
		{name: "quoted values", files: map[string]string{"REPO": repoConfig + "[alias]\n\tx = \"[filter \\\"q\\\"]\\n\"\n\ty = \"a;b#c\" # d\n\tz = a\\\n[filter \"cont\"]\n[filter \"real\"]\n\tclean = \"x\\ty\"\n"}},
		{name: "value comment", files: map[string]string{"REPO": repoConfig + "[alias]\n\tx = a ; it's \"open \\q\n[filter \"after\"]\n\tclean = x # \\\n\tsmudge = y\n"}},
		{name: "continuation", files: map[string]string{"REPO": repoConfig + "[alias]\n\tx = \"a\\\nb\" \\\n c\n[filter \"after\"]\n\tclean = x\n"}},
		{name: "no final newline", files: map[string]string{"REPO": repoConfig + "[filter \"eof\"]\n\tclean = x"}},
		{name: "valueless last", files: map[string]string{"REPO": repoConfig + "[filter \"eof\"]\n\trequired"}},
		{name: "utf-8 values", files: map[string]string{".gitconfig": "[user]\n\tname = Zoë Ünicode\n", "REPO": repoConfig}},
		{name: "global", files: map[string]string{".gitconfig": "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n", "REPO": repoConfig + "[filter \"x\"]\n\tclean = y\n"}},
		{name: "xdg and home", files: map[string]string{".config/git/config": "[filter \"xdg\"]\n\tclean = a\n", ".gitconfig": "[filter \"home\"]\n\tclean = b\n", "REPO": repoConfig + "[filter \"xdg\"]\n\tsmudge = c\n"}},
		{name: "no repository config", files: map[string]string{".gitconfig": "[filter \"g\"]\n\tclean = b\n"}},

		{name: "include", files: map[string]string{"REPO": repoConfig + "[include]\n\tpath = other\n"}, fallback: true},
		{name: "includeIf", files: map[string]string{".gitconfig": "[includeIf \"gitdir:~/\"]\n\tpath = other\n", "REPO": repoConfig}, fallback: true},
		{name: "include case", files: map[string]string{"REPO": repoConfig + "[InClUdE]\n\tpath = other\n"}, fallback: true},
		{name: "worktree config", files: map[string]string{"REPO": repoConfig + "[extensions]\n\tworktreeConfig = true\n"}, fallback: true},
		{name: "escaped subsection", files: map[string]string{"REPO": repoConfig + "[filter \"a\\\"b\"]\n\tclean = x\n"}, fallback: true},
		{name: "crlf", files: map[string]string{"REPO": repoConfig + "[filter \"dos\"]\r\n\tclean = x\r\n"}, fallback: true},
		{name: "bom", files: map[string]string{".gitconfig": "\xef\xbb\xbf[filter \"bom\"]\n\tclean = x\n", "REPO": repoConfig}, fallback: true},
		{name: "bad escape", files: map[string]string{"REPO": repoConfig + "[filter \"x\"]\n\tclean = a\\qb\n"}, fallback: true},
		{name: "unterminated quote", files: map[string]string{"REPO": repoConfig + "[filter \"x\"]\n\tclean = \"a\n"}, fallback: true},
		{name: "bad header", files: map[string]string{"REPO": repoConfig + "[filter \"x\" ]\n\tclean = a\n"}, fallback: true},
		{name: "repository config unreadable", files: map[string]string{"REPO": repoConfig + "[filter \"x\"]\n\tclean = a\n"}, fallback: os.Geteuid() != 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			repo, env := configHome(t, tc.files)
			if tc.name == "repository config unreadable" {
				os.Chmod(filepath.Join(repo, ".git", "config"), 0)
			}
			for _, dir := range []string{repo, filepath.Join(repo, "sub", "dir")} {
				os.MkdirAll(dir, 0o755)
				compareWithGit(t, dir, env, tc.fallback)
			}
		})
	}
}

// compareWithGit checks knownFilterKeys in dir against git: the same keys
// when it answers, and an answer exactly when fallback is false.
func compareWithGit(t *testing.T, dir string, env []string, fallback bool) {
	t.Helper()
	got, ok := knownFilterKeys(dir, env)
	if ok == fallback {
		t.Errorf("in %s: known = %v, want %v (keys %q)", dir, ok, !fallback, got)
	}
	if !ok {
		return
	}
	want, gitOK := gitFilterKeys(t, dir, env)
	if !gitOK {
		t.Fatalf("in %s: knownFilterKeys answered %q where git fails", dir, got)
	}
	if got != want {
		t.Errorf("in %s: keys = %q, git lists %q", dir, got, want)
	}
}

// TestKnownFilterKeysOnGeneratedConfigs compares with git on many
// configurations assembled from tricky fragments: wherever
// knownFilterKeys answers, git lists the same keys.
func TestKnownFilterKeysOnGeneratedConfigs(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the filter drivers are always asked of git here")
	}
	fragments := []string{
		"[filter \"a\"]\n", "[filter.B]\n", "[core]\n", "[Filter \"c d\"]", "[filter \"\"]\n", "[filter]\n",
		"\tclean = x\n", "smudge=y\n", "\trequired\n", "process = \"q;#\" ; c\n", "clean = a # \"x\\q\\\n", "clean = a\\\n", "x = \"\\\"[filter \\\"z\\\"]\"\n",
		"# [filter \"no\"]\n", "; clean = no\n", " ", "\n", "\t", "\"", "\\", "[", "]", "=", ";", "#", "a", "Z9-",
		"[filter \"e\"] clean\n", "[alias] x = \"a\n", "[filter \"u\xc3\xbc\"]\n",
	}
	rng := rand.New(rand.NewSource(20))
	repo, env := configHome(t, nil)
	answered := 0
	const n = 300
	for i := range n {
		var b strings.Builder
		for range 1 + rng.Intn(12) {
			b.WriteString(fragments[rng.Intn(len(fragments))])
		}
		text := b.String()
		if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte(repoConfig+text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, ok := knownFilterKeys(repo, env)
		if !ok {
			continue
		}
		answered++
		want, gitOK := gitFilterKeys(t, repo, env)
		if !gitOK || got != want {
			t.Errorf("config %d %q: keys %q, git lists %q (git ok %v)", i, text, got, want, gitOK)
		}
	}
	t.Logf("%d of %d configurations answered without git", answered, n)
	if answered < n/10 {
		t.Errorf("only %d of %d configurations answered: the comparison proves little", answered, n)
	}
}

// TestKnownFilterKeysAskGitForOtherLayouts: where git could find another
// repository, or read another file, than the .git directory on the way up,
// knownFilterKeys does not answer.
func TestKnownFilterKeysAskGitForOtherLayouts(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the filter drivers are always asked of git here")
	}
	git := func(t *testing.T, dir string, env []string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, append(env, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	filters := map[string]string{"REPO": repoConfig + "[filter \"x\"]\n\tclean = y\n"}
	t.Run("linked worktree", func(t *testing.T) {
		repo, env := configHome(t, filters)
		git(t, repo, env, "commit", "-q", "--allow-empty", "-m", "init")
		wt := filepath.Join(filepath.Dir(repo), "wt")
		git(t, repo, env, "worktree", "add", "-q", wt)
		compareWithGit(t, wt, env, true)
	})
	t.Run("gitfile", func(t *testing.T) {
		repo, env := configHome(t, filters)
		other := filepath.Join(filepath.Dir(repo), "other")
		os.MkdirAll(other, 0o755)
		os.WriteFile(filepath.Join(other, ".git"), []byte("gitdir: "+filepath.Join(repo, ".git")+"\n"), 0o644)
		compareWithGit(t, other, env, true)
	})
	t.Run("bare repository inside", func(t *testing.T) {
		repo, env := configHome(t, filters)
		bare := filepath.Join(repo, "fixtures", "bare.git")
		git(t, repo, env, "init", "-q", "--bare", bare)
		os.WriteFile(filepath.Join(bare, "config"), []byte("[filter \"bare\"]\n\tclean = z\n"), 0o644)
		compareWithGit(t, bare, env, true)
		compareWithGit(t, filepath.Join(bare, "refs"), env, true)
	})
	t.Run("inside .git", func(t *testing.T) {
		repo, env := configHome(t, filters)
		compareWithGit(t, filepath.Join(repo, ".git"), env, true)
		compareWithGit(t, filepath.Join(repo, ".git", "objects"), env, true)
	})
	t.Run("not a git directory on the way", func(t *testing.T) {
		repo, env := configHome(t, filters)
		sub := filepath.Join(repo, "sub")
		os.MkdirAll(filepath.Join(sub, ".git"), 0o755) // git passes over it to repo
		compareWithGit(t, sub, env, true)
	})
	t.Run("symlinked directory", func(t *testing.T) {
		repo, env := configHome(t, filters)
		link := filepath.Join(t.TempDir(), "link")
		if err := os.Symlink(repo, link); err != nil {
			t.Skip(err)
		}
		compareWithGit(t, link, env, false)
	})
	t.Run("no repository", func(t *testing.T) {
		_, env := configHome(t, map[string]string{".gitconfig": "[filter \"g\"]\n\tclean = y\n"})
		compareWithGit(t, t.TempDir(), env, false)
	})
	for _, extra := range []string{"GIT_DIR=/elsewhere", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_COUNT=0", "GIT_CEILING_DIRECTORIES=/"} {
		t.Run(extra, func(t *testing.T) {
			repo, env := configHome(t, filters)
			if _, ok := knownFilterKeys(repo, append(env, extra)); ok {
				t.Errorf("answered with %s in git's environment", extra)
			}
		})
	}
	t.Run("without GIT_CONFIG_NOSYSTEM", func(t *testing.T) {
		repo, _ := configHome(t, filters)
		if _, ok := knownFilterKeys(repo, []string{"PATH=/bin", "HOME=/home/u"}); ok {
			t.Error("answered although git would read the system configuration")
		}
	})
	t.Run("relative XDG_CONFIG_HOME", func(t *testing.T) {
		repo, env := configHome(t, filters)
		if _, ok := knownFilterKeys(repo, append(env, "XDG_CONFIG_HOME=rel")); ok {
			t.Error("answered with a relative XDG_CONFIG_HOME")
		}
	})
	t.Run("XDG_CONFIG_HOME", func(t *testing.T) {
		repo, env := configHome(t, map[string]string{"xdg/git/config": "[filter \"fromxdg\"]\n\tclean = y\n", ".config/git/config": "[filter \"notread\"]\n\tclean = y\n"})
		env = append(env, "XDG_CONFIG_HOME="+filepath.Join(filepath.Dir(repo), "xdg"))
		compareWithGit(t, repo, env, false)
		if got, _ := knownFilterKeys(repo, env); got != "filter.fromxdg.clean\n" {
			t.Errorf("keys = %q, want the XDG file's", got)
		}
	})
}

func TestValidHead(t *testing.T) {
	for head, want := range map[string]bool{
		"ref: refs/heads/main\n":                     true,
		"ref:refs/heads/main":                        true,
		"ref: \t\n refs/x":                           true,
		"ref: heads/main\n":                          false,
		"0123456789abcdef0123456789ABCDEF01234567\n": true,
		"0123456789abcdef0123456789abcdef0123456":    false,
		"0123456789abcdef0123456789abcdef0123456g":   false,
		"":        false,
		"garbage": false,
	} {
		if got := validHead([]byte(head)); got != want {
			t.Errorf("validHead(%q) = %v, want %v", head, got, want)
		}
	}
}

// BenchmarkKnownFilterKeys measures reading the filter drivers' names
// without git (what replaced a git process before every status).
func BenchmarkKnownFilterKeys(b *testing.B) {
	dir := b.TempDir()
	if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
		b.Skip("git not usable")
	}
	env := environ(os.Environ())
	for b.Loop() {
		if _, ok := knownFilterKeys(dir, env); !ok {
			b.Fatal(fmt.Errorf("not known"))
		}
	}
}
