package snapshot

// repoinit.go: a new store's repository, created in Go. Contract:
// initRepo makes in gitDir what `git init -q --template=` makes there when
// run as the store runs git (gitcmd.Private: core.logAllRefUpdates=false
// given, so not written) — objects/info, objects/pack, refs/heads,
// refs/tags, the config naming the work tree, and HEAD — with HEAD written
// last through a temporary file: Open takes a store with a HEAD as made,
// and one without as new (a creation a crash cut short is made again).
// TestNewStoreSpawnsNoGitProcess compares the files with git's.

import (
	"os"
	"path/filepath"
	"strings"
)

// initRepo creates the store's repository in gitDir for the work tree
// work.
func initRepo(gitDir, work string) error {
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(gitDir, filepath.FromSlash(d)), 0o755); err != nil {
			return err
		}
	}
	config := "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
	if caseInsensitive(gitDir) {
		config += "\tignorecase = true\n"
	}
	config += "\tworktree = " + quoteConfig(work) + "\n"
	if err := writeReplace(gitDir, filepath.Join(gitDir, "config"), []byte(config), 0o644); err != nil {
		return err
	}
	return writeReplace(gitDir, filepath.Join(gitDir, "HEAD"), []byte("ref: refs/heads/master\n"), 0o644)
}

// caseInsensitive reports whether dir's file system folds case, as git
// init probes it (its config file seen under another case).
func caseInsensitive(dir string) bool {
	f, err := os.CreateTemp(dir, "probe-case-")
	if err != nil {
		return false
	}
	f.Close()
	defer os.Remove(f.Name())
	_, err = os.Lstat(filepath.Join(dir, strings.ToUpper(filepath.Base(f.Name()))))
	return err == nil
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
