package gitignore

import (
	"bytes"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// The oracle: git itself. TestMatchesGitCheckIgnore writes generated
// ignore files (the root's, a subdirectory's, .git/info/exclude) and a
// generated tree into a fresh repository and asks `git check-ignore
// --no-index -v -n` about every path; the Stack, consulted the way the
// walkers do (an ignored directory is not entered), must agree on each.

// ignoreAtoms are the pieces patterns are made of: names the tree has,
// glob syntax, escapes, and what gitignore(5) gives a meaning.
var ignoreAtoms = []string{
	"a", "b", "ab", "x", "a.go", "*", "?", "a*", "*.go", "*b", "[ab]", "[!a]", "[a-b]*", "**",
	`\[a]`, "[a]", "a b", `\#c`, `\!d`, "d", `a\*`, "*.*", "[[:alpha:]]", "{a,b}",
}

// ignoreNames are the names the generated trees are made of.
var ignoreNames = []string{"a", "b", "ab", "x", "a.go", "b.go", "[a]", "a b", "#c", "!d", "d", "a*", "{a,b}"}

// genPattern makes one line of an ignore file.
func genPattern(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString([]string{"", "", "", "/", "!", "**/", "#", `\!`, " "}[rng.Intn(9)])
	for i := range 1 + rng.Intn(3) {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(ignoreAtoms[rng.Intn(len(ignoreAtoms))])
	}
	b.WriteString([]string{"", "", "", "/", " ", `\ `, "/**", "/*", "\r"}[rng.Intn(9)])
	return b.String()
}

// genIgnoreFile makes an ignore file of a few lines.
func genIgnoreFile(rng *rand.Rand) string {
	var lines []string
	for range 1 + rng.Intn(5) {
		lines = append(lines, genPattern(rng))
	}
	return strings.Join(lines, "\n") + "\n"
}

// genTree makes a set of slash-separated paths, at most three deep;
// a path that is another's prefix is a directory.
func genTree(rng *rand.Rand) []string {
	set := map[string]bool{}
	for range 6 + rng.Intn(10) {
		var parts []string
		for range 1 + rng.Intn(3) {
			parts = append(parts, ignoreNames[rng.Intn(len(ignoreNames))])
		}
		for i := range parts {
			set[strings.Join(parts[:i+1], "/")] = true
		}
	}
	paths := make([]string, 0, len(set))
	for p := range set {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// gitIgnored asks git which of the paths are ignored.
func gitIgnored(t *testing.T, repo string, env, paths []string) map[string]bool {
	t.Helper()
	cmd := exec.Command("git", "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin")
	cmd.Dir, cmd.Env = repo, env
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
		t.Fatalf("git check-ignore: %v: %s", err, stderr.String())
	}
	// -z -v -n: source, line, pattern and path, each ended by NUL.
	f := strings.Split(string(out), "\x00")
	got := map[string]bool{}
	for i := 0; i+3 < len(f); i += 4 {
		pattern, path := f[i+2], f[i+3]
		got[path] = pattern != "" && !strings.HasPrefix(pattern, "!")
	}
	return got
}

// walkerIgnored is what a walker decides for rel under top: each
// directory on the way is checked (an ignored one is not entered) and
// its own ignore file pushed.
func walkerIgnored(top, rel string, isDir bool) bool {
	s := ForRoot(top).Push(top, Load(filepath.Join(top, ".gitignore")))
	dir := top
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		if s.Ignored(dir, true) {
			return true
		}
		s = s.Push(dir, Load(filepath.Join(dir, ".gitignore")))
	}
	return s.Ignored(filepath.Join(top, rel), isDir)
}

func TestMatchesGitCheckIgnore(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	home := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "GIT_CONFIG_NOSYSTEM=1"}
	rng := rand.New(rand.NewSource(28))
	const trials = 150
	checked, ignored := 0, 0
	repo := filepath.Join(t.TempDir(), "r")
	cmd := exec.Command("git", "init", "-q", repo)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for trial := range trials {
		// One repository, emptied for each tree.
		entries, err := os.ReadDir(repo)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != ".git" {
				if err := os.RemoveAll(filepath.Join(repo, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := os.WriteFile(filepath.Join(repo, ".git", "info", "exclude"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		paths := genTree(rng)
		isDir := map[string]bool{}
		for _, p := range paths {
			dir := filepath.Dir(p)
			if dir != "." {
				isDir[dir] = true
			}
		}
		for _, p := range paths {
			full := filepath.Join(repo, p)
			var err error
			if isDir[p] {
				err = os.MkdirAll(full, 0o755)
			} else {
				err = os.MkdirAll(filepath.Dir(full), 0o755)
				if err == nil {
					err = os.WriteFile(full, nil, 0o644)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		files := map[string]string{".gitignore": genIgnoreFile(rng)}
		if rng.Intn(2) == 0 {
			files[filepath.Join(".git", "info", "exclude")] = genIgnoreFile(rng)
		}
		for _, p := range paths {
			if isDir[p] && rng.Intn(3) == 0 {
				files[filepath.Join(p, ".gitignore")] = genIgnoreFile(rng)
			}
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want := gitIgnored(t, repo, env, paths)
		for _, p := range paths {
			got := walkerIgnored(repo, p, isDir[p])
			checked++
			if want[p] {
				ignored++
			}
			if got != want[p] {
				t.Errorf("trial %d: %q (dir %v): ignored %v, git says %v; ignore files %q", trial, p, isDir[p], got, want[p], files)
			}
		}
	}
	t.Logf("%d paths in %d trees, %d ignored by git", checked, trials, ignored)
	if ignored < checked/10 || ignored > checked*9/10 {
		t.Errorf("%d of %d paths ignored: the patterns prove little", ignored, checked)
	}
}

// TestGitWildmatchForms pins what the differential test found, each as
// git check-ignore answers: POSIX classes in brackets, and "**/**" and
// "dir/**/**" (the trailing "/**" matching inside, the other "**"s zero
// or more directories).
func TestGitWildmatchForms(t *testing.T) {
	tests := []struct {
		pattern, path string
		isDir, want   bool
	}{
		{"[[:alpha:]]", "a", true, true},
		{"[[:alpha:]]/", "b", true, true},
		{"[[:digit:]]", "a", false, false},
		{"[[:digit:][:upper:]]", "A", false, true},
		{"[![:lower:]]", "a", false, false},
		{"[![:lower:]]", "Z", false, true},
		{"[[:nosuch:]]", "a", false, false},
		{"**/**", "a", true, true},
		{"**/**/**", "b", false, true},
		{"a/**/**", "a", true, false},
		{"a/**/**", "a/x", true, true},
		{"a/**", "a", true, false},
		{"a/**", "a/x/f", false, true},
	}
	for _, tt := range tests {
		s := (*Stack)(nil).Push("/r", Parse([]byte(tt.pattern+"\n")))
		if got := s.Ignored("/r/"+tt.path, tt.isDir); got != tt.want {
			t.Errorf("%q on %q (dir %v): ignored %v, git says %v", tt.pattern, tt.path, tt.isDir, got, tt.want)
		}
	}
}

// FuzzMatchesGitCheckIgnore is the fuzzing form of the differential test:
// one pattern line and one path (made a file, its parents directories) in
// a repository, and git check-ignore's answer.
func FuzzMatchesGitCheckIgnore(f *testing.F) {
	if _, err := exec.LookPath("git"); err != nil {
		f.Skip("git not installed")
	}
	for _, s := range [][2]string{
		{"[[:alpha:]]", "a/b"}, {"**/**", "x"}, {"a/**/**", "a/b/c"}, {"!a", "a"}, {`\#c`, "#c"},
		{"*.go ", "a.go"}, {`a\ `, "a "}, {"/a/", "a/b"}, {"[!a-c]?", "dx"}, {"a/**/b", "a/b"},
	} {
		f.Add(s[0], s[1])
	}
	home := f.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "GIT_CONFIG_NOSYSTEM=1"}
	repo := filepath.Join(home, "r")
	cmd := exec.Command("git", "init", "-q", repo)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		f.Fatalf("git init: %v\n%s", err, out)
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if strings.ContainsAny(pattern, "\n\x00") || !validRelPath(path) {
			return
		}
		if !utf8.ValidString(pattern) || !utf8.ValidString(path) {
			return // a documented difference: see the package comment
		}
		top := filepath.Join(repo, "t")
		if err := os.RemoveAll(top); err != nil {
			t.Fatal(err)
		}
		full := filepath.Join(top, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return // a name the file system refuses
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			return
		}
		if err := os.WriteFile(filepath.Join(top, ".gitignore"), []byte(pattern+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		rel := "t/" + path
		want := gitIgnored(t, repo, env, []string{rel})[rel]
		if got := walkerIgnored(repo, rel, false); got != want {
			t.Errorf("pattern %q, path %q: ignored %v, git says %v", pattern, path, got, want)
		}
	})
}

// validRelPath reports whether path is a clean relative path of names a
// file may have, none of them special to git.
func validRelPath(path string) bool {
	if path == "" || len(path) > 200 || strings.ContainsAny(path, "\x00\\\n\r\t\"") {
		return false
	}
	for _, name := range strings.Split(path, "/") {
		if name == "" || name == "." || name == ".." || strings.EqualFold(name, ".git") || name == ".gitignore" {
			return false
		}
		for _, r := range name {
			if r < ' ' || r == 0x7f {
				return false
			}
		}
	}
	return true
}
