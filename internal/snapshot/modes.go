package snapshot

// modes.go: file modes, exactly. Git keeps only the executable bit
// (100644 or 100755); a snapshot also records, in a blob its commit names
// ("modes: <oid>"), every regular file whose permission bits (setuid,
// setgid and sticky included) differ from git's canonical 0644 or 0755,
// as "<octal>\t<path>" lines in path order. A restore then gives a file
// the exact bits of the snapshot (0755 → chmod 0600 → rewind: 0755), and
// a change of mode alone is a change (FileChange.ModeOnly).
//
// Cost: none of its own where the Go walk runs (walk.go: the bits come
// with the stat data it compares); elsewhere a read of the store's index
// file and an lstat per file at each snapshot, run while git walks.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// unixPerm returns the permission bits of fi as a Unix mode (07777).
func unixPerm(fi os.FileInfo) uint32 {
	m := fi.Mode()
	p := uint32(m.Perm())
	if m&os.ModeSetuid != 0 {
		p |= syscall.S_ISUID
	}
	if m&os.ModeSetgid != 0 {
		p |= syscall.S_ISGID
	}
	if m&os.ModeSticky != 0 {
		p |= syscall.S_ISVTX
	}
	return p
}

// fileMode turns a Unix mode (07777) into an os.FileMode for Chmod.
func fileMode(p uint32) os.FileMode {
	m := os.FileMode(p & 0o777)
	if p&syscall.S_ISUID != 0 {
		m |= os.ModeSetuid
	}
	if p&syscall.S_ISGID != 0 {
		m |= os.ModeSetgid
	}
	if p&syscall.S_ISVTX != 0 {
		m |= os.ModeSticky
	}
	return m
}

// canonicalPerm is the permission git's mode stands for (0 for a symlink
// or an absent file).
func canonicalPerm(gitMode string) uint32 {
	switch gitMode {
	case "100644":
		return 0o644
	case "100755":
		return 0o755
	}
	return 0
}

// modesRead is readModes' answer.
type modesRead struct {
	modes map[string]uint32
	err   error
}

// readModes lists the regular files of the store's index whose bits
// differ from git's canonical ones.
func (s *Store) readModes(ctx context.Context) (map[string]uint32, error) {
	// The index file read here (seed.go's reader), not through a git
	// process: one fewer at every snapshot.
	if data, err := os.ReadFile(s.git.IndexFile); err == nil {
		m := map[string]uint32{}
		if _, err := walkIndex(data, func(e *indexEntry) {
			if mode := e.mode(); mode == 0o100644 || mode == 0o100755 {
				noteMode(s.workTree, m, e.path)
			}
		}); err == nil {
			return m, nil
		}
	} else if errors.Is(err, os.ErrNotExist) {
		return map[string]uint32{}, nil
	}
	out, err := s.git.Output(ctx, nil, "ls-files", "-z", "--stage") // --format needs git 2.38
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: modes: %w", s.workTree, err)
	}
	m := map[string]uint32{}
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		mode, _, _ := strings.Cut(meta, " ")
		if !ok || canonicalPerm(mode) == 0 {
			continue
		}
		noteMode(s.workTree, m, path)
	}
	return m, nil
}

// noteMode records path's bits in m when they are not git's canonical
// ones for the mode git gives it (the owner's x bit), and forgets it
// otherwise (gone, or not a regular file).
func noteMode(work string, m map[string]uint32, path string) {
	setMode(m, path, oddPerm(work, path))
}

// oddPerm is path's permission bits when they are not git's canonical
// ones for the mode git gives it (the owner's x bit), else 0 (also when
// it is gone, or not a regular file).
func oddPerm(work, path string) uint32 {
	fi, err := os.Lstat(filepath.Join(work, filepath.FromSlash(path)))
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	if p := unixPerm(fi); !gitPerm(p) {
		return p
	}
	return 0
}

// gitPerm reports whether perm (a regular file's 07777 bits) is git's
// canonical one for the owner's x bit: 0644 or 0755.
func gitPerm(perm uint32) bool {
	if perm&0o100 != 0 {
		return perm == 0o755
	}
	return perm == 0o644
}

// setMode records perm (oddPerm's) for path in m, or forgets path at 0.
func setMode(m map[string]uint32, path string, perm uint32) {
	if perm != 0 {
		m[path] = perm
	} else {
		delete(m, path)
	}
}

// updatedModes is the modes text of a snapshot: the index's modes with
// the changed paths looked at again and the removed ones left out. A long
// list (a first snapshot's every file) is looked at on classifiers
// goroutines, as classifyAll's.
func updatedModes(work string, m map[string]uint32, update, remove []string) string {
	if len(update) < classifyMin {
		for _, p := range update {
			noteMode(work, m, p)
		}
	} else {
		perms := make([]uint32, len(update))
		var wg sync.WaitGroup
		per := (len(update) + classifiers - 1) / classifiers
		for lo := 0; lo < len(update); lo += per {
			wg.Go(func() {
				for i := lo; i < min(lo+per, len(update)); i++ {
					perms[i] = oddPerm(work, update[i])
				}
			})
		}
		wg.Wait()
		for i, p := range update {
			setMode(m, p, perms[i])
		}
	}
	for _, p := range remove {
		delete(m, p)
	}
	return modesText(m)
}

// modesText is the modes text of m: a line "<bits>\t<path>" a path, in
// order.
func modesText(m map[string]uint32) string {
	paths := make([]string, 0, len(m))
	for p := range m {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, "%04o\t%s\n", m[p], p)
	}
	return b.String()
}

// storeModes writes the modes text as a blob ("" when empty) — once for
// a text the Store wrote last.
func (s *Store) storeModes(ctx context.Context, text string) (string, error) {
	if text == "" {
		return "", nil
	}
	s.lastMu.Lock()
	if s.modesText == text && s.modesBlob != "" {
		defer s.lastMu.Unlock()
		return s.modesBlob, nil
	}
	s.lastMu.Unlock()
	oid, err := writeObject(s.git.GitDir, "blob", []byte(text))
	if err != nil {
		return "", fmt.Errorf("snapshot %s: modes: %w", s.workTree, err)
	}
	s.lastMu.Lock()
	s.modesText, s.modesBlob = text, oid
	s.lastMu.Unlock()
	return oid, nil
}

// modesOf reads the recorded modes of snapshot id: path → Unix mode
// (empty for a snapshot that recorded none, or one taken before modes were).
func (s *Store) modesOf(ctx context.Context, id ID) (map[string]uint32, error) {
	snap, err := s.Get(ctx, id)
	if err != nil || snap.Modes == "" {
		return nil, err
	}
	out, err := s.git.Output(ctx, nil, "cat-file", "blob", snap.Modes)
	if err != nil {
		return nil, fmt.Errorf("read modes of %s: %w", id, err)
	}
	m := map[string]uint32{}
	for _, line := range bytes.Split(out, []byte("\n")) {
		perm, path, ok := bytes.Cut(line, []byte("\t"))
		if !ok {
			continue
		}
		if p, err := strconv.ParseUint(string(perm), 8, 32); err == nil {
			m[string(path)] = uint32(p)
		}
	}
	return m, nil
}

// permIn is path's mode in a snapshot: recorded, or git's canonical one.
func permIn(modes map[string]uint32, path, gitMode string) uint32 {
	if p, ok := modes[path]; ok {
		return p
	}
	return canonicalPerm(gitMode)
}

// withModes sets the exact modes of changes (from → to) and adds the
// files whose mode alone changed (in scope), in path order.
func withModes(changes []FileChange, from, to map[string]uint32, scope []string) []FileChange {
	listed := map[string]bool{}
	for i := range changes {
		c := &changes[i]
		listed[c.Path] = true
		c.OldPerm, c.NewPerm = permIn(from, c.Path, c.OldMode), permIn(to, c.Path, c.NewMode)
	}
	// A path recorded on one side only, with the same git mode on both
	// (not in changes): the other side has the canonical bits of that
	// git mode, which the recorded bits' owner-x bit gives.
	canon := func(p uint32) uint32 {
		if p&0o100 != 0 {
			return 0o755
		}
		return 0o644
	}
	seen := map[string]bool{}
	for _, m := range []map[string]uint32{from, to} {
		for path := range m {
			if listed[path] || seen[path] || !inScope(path, scope) {
				continue
			}
			seen[path] = true
			pf, okF := from[path]
			pt, okT := to[path]
			if !okF {
				pf = canon(pt)
			}
			if !okT {
				pt = canon(pf)
			}
			if pf != pt {
				gm := "100644"
				if pf&0o100 != 0 {
					gm = "100755"
				}
				changes = append(changes, FileChange{Path: path, Status: Modified, OldMode: gm, NewMode: gm, OldPerm: pf, NewPerm: pt, ModeOnly: true})
			}
		}
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes
}
