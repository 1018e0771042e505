package snapshot

// budget.go: checkpoints of a tree too large to walk at every step.
//
// Contract. A Budget bounds what a full snapshot may cost: the files of
// the tree (MaxFiles) and the time of the session's first snapshot
// (FirstTime). Over it (Budget.Exceeded), the caller takes TakePaths
// snapshots instead: they record only the paths the step's tools are
// known to touch (write/edit's paths, the paths a bash command names:
// KnownPaths), on top of the store's index, and say so (Snapshot.Partial
// lists every path the session's paths-only snapshots covered so far). A
// restore to a paths-only snapshot touches those paths only (never a file
// it does not name), and its own before/after snapshots are paths-only
// too, so it costs no walk of the tree either. A session's paths-only
// snapshots are chained (each commit's parent is the one before): a
// restore across several steps takes a path that only a later step named
// from the first snapshot that covered it (pathsOnly.plan). A tree found
// over FirstTime is remembered in the store's directory, so the next
// session does not pay the slow attempt again (budgetmemory.go).

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/safefile"
)

// Budget defaults: a tree with more files, or whose first snapshot takes
// longer, is checkpointed by tool-known paths only.
const (
	DefaultMaxFiles  = 200_000
	DefaultFirstTime = 5 * time.Second
)

// Budget bounds a full snapshot (zero fields: no bound).
type Budget struct {
	MaxFiles  int
	FirstTime time.Duration
}

// Exceeded reports whether a tree of files files (0: not known) whose
// first snapshot took (or has taken so far) elapsed is over the budget.
func (b Budget) Exceeded(files int, elapsed time.Duration) bool {
	return (b.MaxFiles > 0 && files > b.MaxFiles) || (b.FirstTime > 0 && elapsed > b.FirstTime)
}

// Notice is the one-line notice of a session whose tree is over budget.
func (b Budget) Notice(files int) string {
	why := fmt.Sprintf("its first checkpoint took over %s (checkpoints.first_snapshot_seconds)", b.FirstTime)
	if b.MaxFiles > 0 && files > b.MaxFiles {
		why = fmt.Sprintf("%d files > checkpoints.max_files %d", files, b.MaxFiles)
	}
	return "checkpoints: this tree is too large to checkpoint whole (" + why + "): each step keeps only the files its tools name (write, edit, paths a shell command names); other changes cannot be undone"
}

// FileCount is how many files the tree is known to have without walking
// it: the entries of the store's index, or of the repository's own index
// before the first snapshot; 0 when neither is there.
func FileCount(s *Store) int {
	for _, p := range []string{s.git.IndexFile, filepath.Join(s.workTree, ".git", "index")} {
		if n, ok := indexEntries(p, filepath.Dir(p)); ok {
			return n
		}
	}
	return 0
}

// indexEntries reads the entry count of a git index's header, opened by
// the tools' rules (the repository's index may be a FIFO or a link out).
func indexEntries(p, home string) (int, bool) {
	f, _, err := safefile.Open(p, home)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var h [12]byte
	if _, err := f.Read(h[:]); err != nil || string(h[:4]) != "DIRC" {
		return 0, false
	}
	return int(binary.BigEndian.Uint32(h[8:])), true
}

// KnownPaths are the work-tree-relative paths a step's tools are known to
// touch: paths (write/edit's, relative or absolute) and the words of the
// shell commands that name a path inside the tree (Named's reading of a
// command): a word with a slash or a dot, or one that exists (a directory
// `rm -rf build` names; nil exists: none). Globs and paths outside the
// tree are left out.
func KnownPaths(workTree string, paths, commands []string, exists func(rel string) bool) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p == "" || strings.ContainsAny(p, "*?[") {
			return
		}
		if filepath.IsAbs(p) {
			rel, err := filepath.Rel(workTree, p)
			if err != nil {
				return
			}
			p = rel
		}
		p = path.Clean(filepath.ToSlash(p))
		if !filepath.IsLocal(p) || p == "." || p == ".git" || strings.HasPrefix(p, ".git/") || seen[p] {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	for _, p := range paths {
		add(p)
	}
	for _, cmd := range commands {
		for _, w := range shellWords(cmd) {
			if strings.HasPrefix(w, "-") {
				continue
			}
			if strings.Contains(w, "/") || strings.Contains(w, ".") {
				add(w)
			} else if exists != nil && !filepath.IsAbs(w) && filepath.IsLocal(w) && exists(w) {
				add(w)
			}
		}
	}
	sort.Strings(out)
	return out
}

// pathsOnly is the store's paths-only side: its snapshots, a restore's
// plan, and what a comparison may look at (a type of its own, so that
// Store's method set stays as it is).
type pathsOnly struct{ s *Store }

// TakePaths snapshots paths only (KnownPaths' answer) in st, on top of
// what the store's index holds; the snapshot's Partial lists every path
// the session's paths-only snapshots have covered.
func TakePaths(ctx context.Context, st *Store, session, label string, paths []string) (Snapshot, error) {
	s := st
	if err := checkSession(session); err != nil {
		return Snapshot{}, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	defer unlock()
	s.lastMu.Lock()
	if s.partial == nil {
		s.partial = map[string][]string{}
	}
	all := mergePaths(s.partial[session], paths)
	s.partial[session] = all
	s.lastMu.Unlock()
	return pathsOnly{s}.take(ctx, session, label, all)
}

// mergePaths is the sorted union of a and b.
func mergePaths(a, b []string) []string {
	out := slices.Concat(a, b)
	sort.Strings(out)
	return slices.Compact(out)
}

// take is TakePaths with the lock held and the paths merged.
func (ps pathsOnly) take(ctx context.Context, session, label string, paths []string) (snap Snapshot, err error) {
	s := ps.s
	snap = Snapshot{Session: session, Label: label, Time: time.Now(), Partial: slices.Clone(paths)}
	if len(paths) == 0 {
		snap.Partial = []string{}
	}
	writing := false
	defer func() {
		if err != nil && writing {
			s.discardFailed(context.WithoutCancel(ctx))
		}
	}()
	if _, wait := s.seedIndex(ctx, false); wait != nil {
		if err := wait(); err != nil {
			return snap, err
		}
	}
	var update, remove []string
	if len(paths) > 0 {
		args := []string{"ls-files", "-z", "--others", "--modified", "--deleted", "--exclude-standard", "--"}
		args = append(args, paths...) // literal: gitcmd.Private sets GIT_LITERAL_PATHSPECS
		out, err := s.git.Output(ctx, nil, args...)
		if err != nil {
			return snap, fmt.Errorf("snapshot %s: %w", s.workTree, err)
		}
		seen := map[string]bool{}
		for _, p := range strings.Split(string(out), "\x00") {
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			if dir, ok := strings.CutSuffix(p, "/"); ok {
				snap.Skipped = append(snap.Skipped, s.nestedSkip(dir))
				continue
			}
			switch skip := s.classify(p); {
			case skip == nil:
				update = append(update, p)
			case skip.Reason == "":
				// A directory now: its files are not named; leave it.
			default:
				snap.Skipped = append(snap.Skipped, *skip)
				remove = append(remove, p)
			}
		}
	}
	modes := map[string]uint32{}
	if data, err := os.ReadFile(s.git.IndexFile); err == nil {
		named := map[string]bool{}
		for _, p := range paths {
			named[p] = true
		}
		walkIndex(data, func(e *indexEntry) {
			if m := e.mode(); (m == 0o100644 || m == 0o100755) && named[e.path] {
				noteMode(s.workTree, modes, e.path)
			}
		})
	}
	modesText := updatedModes(s.workTree, modes, update, remove)
	writing = true
	if err := s.updateIndex(ctx, update, &snap.Skipped); err != nil {
		return snap, err
	}
	if len(remove) > 0 {
		if _, err := s.git.Output(ctx, nulJoin(remove), "update-index", "-z", "--force-remove", "--stdin"); err != nil {
			return snap, fmt.Errorf("snapshot %s: %w", s.workTree, err)
		}
	}
	if snap.Modes, err = s.storeModes(ctx, modesText); err != nil {
		return snap, err
	}
	tree, err := s.git.Output(ctx, nil, "write-tree", "--missing-ok")
	if err != nil {
		return snap, fmt.Errorf("snapshot %s: %w", s.workTree, err)
	}
	snap.Tree = strings.TrimSpace(string(tree))
	s.lastMu.Lock()
	snap.Parent = s.partialHead[session]
	s.lastMu.Unlock()
	args := []string{"commit-tree", snap.Tree}
	if snap.Parent != "" {
		args = append(args, "-p", string(snap.Parent))
	}
	commit, err := s.git.Output(ctx, []byte(commitMessage(snap)), args...)
	if err != nil {
		return snap, fmt.Errorf("snapshot %s: %w", s.workTree, err)
	}
	snap.ID = ID(strings.TrimSpace(string(commit)))
	if _, err := s.git.Output(ctx, nil, "update-ref", s.ref(session, snap.ID), string(snap.ID)); err != nil {
		return snap, fmt.Errorf("snapshot %s: %w", s.workTree, err)
	}
	s.reuse.forget() // a full snapshot never reuses a paths-only one (reuse.go)
	s.lastMu.Lock()
	if s.partialHead == nil {
		s.partialHead = map[string]ID{}
	}
	s.partialHead[session] = snap.ID
	s.lastMu.Unlock()
	return snap, nil
}

// partialPlan is the plan of a restore to the paths-only snapshot target:
// own, the paths target covers (of those asked for, when named), and
// later, the paths only newer paths-only snapshots cover (those of expect,
// the tree the caller last saw, or asked for), each with the snapshot that
// first covered it after target: its state before the step that first
// named it, which no tool changed since target. A path asked for that no
// snapshot covers is lost: not in the snapshot.
func (ps pathsOnly) plan(ctx context.Context, target Snapshot, expect ID, asked []string, named bool) (own []string, byFrom map[ID][]string, lost []Skip, err error) {
	s := ps.s
	for _, p := range target.Partial {
		if !named || overlaps(p, asked) {
			own = append(own, p)
		}
	}
	var want []string // asked for, not covered by target: covered later?
	if named {
		for _, p := range asked {
			if !inScope(p, target.Partial) {
				want = append(want, p)
			}
		}
	}
	from := map[string]ID{}
	id := expect
	for n := 0; id != "" && id != target.ID && n < maxPartialChain; n++ {
		snap, err := s.Get(ctx, id)
		if err != nil {
			return nil, nil, nil, err
		}
		if snap.Partial == nil {
			break
		}
		for _, p := range snap.Partial {
			if !slices.Contains(target.Partial, p) && (!named || overlaps(p, asked)) {
				from[p] = snap.ID // the oldest one wins: the walk goes back
			}
		}
		id = snap.Parent
	}
	later := slices.Collect(maps.Keys(from))
	for _, p := range want {
		if !inScope(p, later) {
			lost = append(lost, Skip{Path: p, Reason: ReasonNotInSnap})
		}
	}
	if len(from) > 0 {
		byFrom = map[ID][]string{}
		for p, id := range from {
			byFrom[id] = append(byFrom[id], p)
		}
	}
	return own, byFrom, lost, nil
}

// overlaps reports whether p and one of scope are the same path or one
// is under the other (a directory a command named, a file in it).
func overlaps(p string, scope []string) bool {
	for _, s := range scope {
		if p == s || strings.HasPrefix(p, s+"/") || strings.HasPrefix(s, p+"/") {
			return true
		}
	}
	return false
}

// maxPartialChain bounds the paths-only snapshots a restore walks back.
const maxPartialChain = 10_000
