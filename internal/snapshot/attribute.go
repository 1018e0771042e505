package snapshot

// attribute.go: which of a step's changes are the step's own. A step's
// patch (before → after) holds every change made in the directory while
// its tools ran; Attribute splits them (pure: the caller stats the files).
//
//   - A path write or edit changed (StepTools.Known) is the step's.
//   - Otherwise a change made while no tool of the step ran (its time is
//     outside the step's window) is someone else's: the user's editor, or
//     another process between the snapshots.
//   - A change made while another session ran a tool in the directory is
//     that session's, named, unless a tool of unknown reach (StepTools.Opaque:
//     a subagent, an MCP server) ran: then everything in the window is the
//     step's, as before.
//   - In the step's window, a shell command's change is the step's when the
//     command names the path (the path, its base name, a directory above
//     it, or a glob matching it) and for any deletion (restoring a deleted
//     file loses nothing); any other change is Unsure: the shell ran, but
//     so may have the user's editor, and a rewind asks before touching it.
//
// A change's time is its file's ctime (set by the kernel at every write,
// chmod or rename; no tool can set it back), or for a deletion the ctime
// of the nearest directory above that still exists. The kernel stamps
// with a coarse clock, so windows are widened by clockSlack.

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// clockSlack widens a window for the kernel's coarse timestamps (a tick
// is 1–10 ms).
const clockSlack = 20 * time.Millisecond

// StepTools is what a step's tools were and when they ran.
type StepTools struct {
	Session string
	// Known are the paths (relative to the work tree) write and edit
	// changed.
	Known []string
	// Commands are the shell commands the step ran.
	Commands []string
	// Opaque is set when a tool of unknown reach ran (a subagent, an MCP
	// tool).
	Opaque     bool
	Start, End time.Time
}

// Claim is whose a change is.
type Claim int

// Claims of an Attributed change.
const (
	Claimed Claim = iota // the step's own
	Unsure               // in the step's shell window, not named by it
	Outside              // someone else's (Session when known)
)

// Attributed is a change with whose it is, and why when not the step's.
type Attributed struct {
	FileChange
	Claim   Claim
	Session string // the other session, for Outside when known
	Why     string
}

// Attribute decides whose each change of a step is. changedAt returns a
// path's change time (for a deletion, its nearest existing directory's),
// false when unknown.
func Attribute(files []FileChange, step StepTools, others []Window, changedAt func(path string) (time.Time, bool)) []Attributed {
	known := map[string]bool{}
	for _, p := range step.Known {
		known[filepath.ToSlash(p)] = true
	}
	shell := len(step.Commands) > 0 || step.Opaque
	out := make([]Attributed, 0, len(files))
	for _, f := range files {
		a := Attributed{FileChange: f}
		t, ok := changedAt(f.Path)
		switch {
		case known[f.Path]:
		case !shell:
			a.Claim, a.Why = Outside, "changed while no tool of this session ran"
		case ok && (t.Before(step.Start.Add(-clockSlack)) || t.After(step.End.Add(clockSlack))):
			a.Claim, a.Why = Outside, "changed while no tool of this session ran"
		case step.Opaque:
		case ok && otherSession(others, step.Session, t) != "":
			a.Claim, a.Session = Outside, otherSession(others, step.Session, t)
			a.Why = "changed while session " + a.Session + " ran a tool"
		case f.Status == Deleted, Named(f.Path, step.Commands):
		default:
			a.Claim, a.Why = Unsure, "changed while the step's shell command ran, which does not name it"
		}
		out = append(out, a)
	}
	return out
}

// otherSession returns a session other than self whose window holds t.
func otherSession(ws []Window, self string, t time.Time) string {
	for _, w := range ws {
		if w.Session == self {
			continue
		}
		end := w.End
		if end.IsZero() {
			end = t // still running
		}
		if !t.Before(w.Start.Add(-clockSlack)) && !t.After(end.Add(clockSlack)) {
			return w.Session
		}
	}
	return ""
}

// Named reports whether one of the shell commands names p: the path, its
// base name, a directory above it, or a glob matching one of those.
func Named(p string, commands []string) bool {
	base := path.Base(p)
	for _, cmd := range commands {
		for _, w := range shellWords(cmd) {
			w = strings.TrimPrefix(w, "./")
			w = strings.TrimSuffix(w, "/")
			if w == "" || w == "." {
				continue
			}
			if w == p || w == base || strings.HasSuffix(w, "/"+p) || strings.HasSuffix(p, "/"+w) || strings.HasPrefix(p, w+"/") {
				return true
			}
			if strings.ContainsAny(w, "*?[") {
				if m, _ := path.Match(w, p); m {
					return true
				}
				if m, _ := path.Match(path.Base(w), base); m && (!strings.Contains(w, "/") || strings.HasPrefix(p, path.Dir(w)+"/")) {
					return true
				}
			}
		}
	}
	return false
}

// shellWords splits a command at blanks, quotes and shell punctuation:
// rough, but a path the command names is one of the words.
func shellWords(cmd string) []string {
	return strings.FieldsFunc(cmd, func(r rune) bool {
		return strings.ContainsRune(" \t\n;|&<>()'\"`=$,{}", r)
	})
}

// ChangeTime is Attribute's changedAt for the work tree: the path's ctime,
// or for a path that is gone, the ctime of the nearest directory above it
// that still exists.
func (s *Store) ChangeTime(rel string) (time.Time, bool) {
	p := filepath.Join(s.workTree, filepath.FromSlash(rel))
	for {
		if fi, err := os.Lstat(p); err == nil {
			return changeTime(fi), true
		}
		if p == s.workTree || !strings.HasPrefix(p, s.workTree) {
			return time.Time{}, false
		}
		p = filepath.Dir(p)
	}
}
