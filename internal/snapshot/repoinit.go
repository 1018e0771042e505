package snapshot

// repoinit.go: a new store's repository, created in Go. Contract:
// initRepo makes in gitDir what git needs to take gitDir for a repository
// and what the store reads from it, no more: objects/ and refs/ (git
// makes objects/pack, objects/<xx>/ and refs/agent/… as it writes into
// them, and so do the store's own writers), the config `git init -q
// --template=` writes when run as the store runs git (gitcmd.Private:
// core.logAllRefUpdates=false given, so not written), and HEAD. Each is
// one metadata operation on the file system, so nothing is made that no
// one reads: git init's objects/info, objects/pack, refs/heads and
// refs/tags are left to whoever first needs them. HEAD is written last:
// Open takes a store whose HEAD holds a whole symbolic ref as made
// (headMade), and any other as new, so a creation a crash cut short,
// HEAD itself half-written included, is made again; the config is
// written in place for that reason, no temporary file and rename. The
// case probe creates no file (caseFolds). TestNewStoreSpawnsNoGitProcess
// compares the files with git's, TestInitRepoMakesOnlyWhatIsNeeded and
// TestOpenRemakesAHalfWrittenHEAD hold the rest.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// headBody is what initRepo writes in HEAD (git init's, the store's refs
// being refs/agent/…).
const headBody = "ref: refs/heads/master\n"

// initRepo creates the store's repository in gitDir for the work tree
// work.
func initRepo(gitDir, work string) error {
	for _, d := range []string{"objects", "refs"} {
		if err := os.Mkdir(filepath.Join(gitDir, d), 0o755); err != nil && !os.IsExist(err) {
			return err
		}
	}
	config := filepath.Join(gitDir, "config")
	body := "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
	tail := "\tworktree = " + quoteConfig(work) + "\n"
	if err := os.WriteFile(config, []byte(body+tail), 0o644); err != nil {
		return err
	}
	if caseFolds(config) {
		if err := os.WriteFile(config, []byte(body+"\tignorecase = true\n"+tail), 0o644); err != nil {
			return err
		}
	}
	// Truncated, not removed first: a HEAD a crash cut short (headMade
	// said no) is written again in place.
	head := filepath.Join(gitDir, "HEAD")
	f, err := os.OpenFile(head, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(headBody)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(head)
	}
	return err
}

// headMade reports whether gitDir's HEAD is a whole symbolic ref: the
// mark of a store initRepo (or git init, in stores made before it)
// finished.
func headMade(gitDir string) bool {
	b, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	return err == nil && bytes.HasPrefix(b, []byte("ref: refs/")) && bytes.HasSuffix(b, []byte("\n"))
}

// caseFolds reports whether the file system holding the file path folds
// case, as git init probes it: the file found under another case (and
// the same file, not a second one that happens to have that name).
// Nothing is created.
func caseFolds(path string) bool {
	base := filepath.Base(path)
	other := []byte(base)
	for i, c := range other {
		switch {
		case 'a' <= c && c <= 'z' && i%2 == 1:
			other[i] = c - 'a' + 'A'
		case 'A' <= c && c <= 'Z' && i%2 == 1:
			other[i] = c - 'A' + 'a'
		}
	}
	if string(other) == base {
		return false
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	gi, err := os.Lstat(filepath.Join(filepath.Dir(path), string(other)))
	return err == nil && os.SameFile(fi, gi)
}

// quoteConfig writes v as git's config writer does (write_pair):
// quoted when it starts or ends with a space or holds ';' or '#', with
// \n, \t, '"' and '\\' escaped.
func quoteConfig(v string) string {
	quote := ""
	if strings.HasPrefix(v, " ") || strings.HasSuffix(v, " ") || strings.ContainsAny(v, ";#") {
		quote = "\""
	}
	r := strings.NewReplacer("\n", "\\n", "\t", "\\t", "\"", "\\\"", "\\", "\\\\")
	return quote + r.Replace(v) + quote
}
