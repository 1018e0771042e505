package gitcmd

// hookspathcache.go: HooksPath without reading the configuration again
// while nothing it read has changed. The tools ask at every write and
// edit (internal/tools, codepaths.go); reading and parsing the files and
// discovering the repository each time cost ≈ 250 µs a write.
//
// Contract. CachedHooksPath answers as HooksPath would for the same dir
// and env whenever the files HooksPath's answer depends on are as they
// were when the cached answer was read: the system, global and repository
// configuration files, and the entries the repository's discovery looks
// at (each ancestor's .git and HEAD up to the repository, the .git
// directory's HEAD and commondir). "As they were" is the same stat (links followed): kind,
// size, modification and change time, inode. A change to any of them —
// `git config core.hooksPath x`, a `git init` in the directory or above
// it, an edited ~/.gitconfig — is seen at the next call. The cache holds
// at most maxHooksCache answers (a session's directory, a few subagents').

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// maxHooksCache bounds the answers kept; the whole cache is dropped when
// it is full.
const maxHooksCache = 64

// hooksCache is the process's cache of CachedHooksPath.
var hooksCache = struct {
	sync.Mutex
	m     map[string]hooksAnswer
	reads int // HooksPath calls made for it (tests)
}{m: map[string]hooksAnswer{}}

// hooksAnswer is one cached answer and the state of the files it read.
type hooksAnswer struct {
	path  string
	ok    bool
	state []fileState
}

// fileState is what Lstat says of one path, as far as a change shows.
type fileState struct {
	path             string
	exists           bool
	mode             os.FileMode
	size             int64
	mtimeNs, ctimeNs int64
	ino              uint64
}

// CachedHooksPath is HooksPath(dir, env), read again only when a file it
// depends on has changed (see the file's contract).
func CachedHooksPath(dir string, env []string) (string, bool) {
	key := hooksKey(dir, env)
	state := hooksState(dir, env)
	hooksCache.Lock()
	a, hit := hooksCache.m[key]
	hooksCache.Unlock()
	if hit && slices.Equal(a.state, state) {
		return a.path, a.ok
	}
	path, ok := HooksPath(dir, env)
	hooksCache.Lock()
	defer hooksCache.Unlock()
	hooksCache.reads++
	if len(hooksCache.m) >= maxHooksCache {
		clear(hooksCache.m)
	}
	hooksCache.m[key] = hooksAnswer{path: path, ok: ok, state: state}
	return path, ok
}

// hooksKey is dir and the variables of env HooksPath looks at.
func hooksKey(dir string, env []string) string {
	var b strings.Builder
	b.WriteString(dir)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "HOME" || name == "XDG_CONFIG_HOME" || strings.HasPrefix(name, "GIT_") {
			b.WriteByte(0)
			b.WriteString(kv)
		}
	}
	return b.String()
}

// hooksState is the state of every file HooksPath's answer for dir
// depends on: the configuration files and the entries of the repository's
// discovery.
func hooksState(dir string, env []string) []fileState {
	home, xdg := "", ""
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case "HOME":
			home = value
		case "XDG_CONFIG_HOME":
			xdg = value
		}
	}
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	paths := []string{systemConfig, filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig")}
	d, err := filepath.Abs(dir)
	if err == nil {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		for {
			dotGit := filepath.Join(d, ".git")
			paths = append(paths, dotGit, filepath.Join(d, "HEAD"))
			if fi, err := os.Lstat(dotGit); err == nil && fi.IsDir() {
				paths = append(paths, filepath.Join(dotGit, "HEAD"), filepath.Join(dotGit, "commondir"), filepath.Join(dotGit, "config"))
				break
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	out := make([]fileState, len(paths))
	for i, p := range paths {
		out[i] = statOf(p)
	}
	return out
}

// statOf is p's fileState (followed, as the configuration files are read,
// so a link's target counts).
func statOf(p string) fileState {
	fs := fileState{path: p}
	fi, err := os.Stat(p)
	if err != nil {
		return fs
	}
	fs.exists, fs.mode, fs.size, fs.mtimeNs = true, fi.Mode(), fi.Size(), fi.ModTime().UnixNano()
	fs.ino, fs.ctimeNs = inodeAndCtime(fi)
	return fs
}
