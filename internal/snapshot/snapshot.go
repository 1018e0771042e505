// Package snapshot records the working directory before and after the
// agent's steps and puts it back: the store behind /undo, /redo, /rewind,
// /diff and `agent rewind`.
//
// Contract. A snapshot is the content of every file of the work tree that
// git would not ignore, byte for byte with its exact permission bits
// (modes.go), symlinks as links, whoever changed it (write, edit, or a
// shell command), and of the ignored files up to Options.IgnoredMaxBytes
// each and IgnoredBudgetBytes in all (ignored.go). Empty directories are
// not kept. It is kept
// in a private git object store, <data>/snapshots/<project-hash>, with its
// own index (whose stat cache makes a snapshot of an unchanged tree cost a
// directory walk, not a read) and refs refs/agent/<session>/<commit>; git
// runs through gitcmd.Private, so the user's repository — .git, refs, index,
// stash, hooks, config — is never opened, and nothing the work tree or the
// user's configuration names is executed. The work tree's .gitignore files
// and the user's excludes file are respected; .git, node_modules and the
// like (DefaultExcludes), the data directory itself, nested repositories,
// files over Options.MaxFileBytes and files the agent cannot read are left
// out, and each snapshot lists what it left out (Snapshot.Skipped, with
// size and mtime, and a fingerprint of a nested repository), so that
// LostChanges can say what changed that no restore brings back. A restore
// never touches a path that is in neither the current tree nor the target
// (skipped files stay as they are), nor the timestamps of a file it does
// not change. A snapshot that fails leaves nothing behind (failure.go).
//
// Restore is all or nothing across crashes: the changes are written to a
// journal (fsynced) before the first file is touched, and Open finishes a
// restore a crash interrupted. Every restore is preceded by a snapshot
// (RestoreResult.Before), so it can itself be undone, and followed by one
// (RestoreResult.After). With RestoreOptions.Expect, a restore first
// compares the tree with the snapshot the caller last saw and refuses, with
// an *OutsideChangesError listing the files, when someone else changed
// them (unless Force). A lock file in the store serialises snapshots and
// restores of every process; BeginTool marks a session's running tool, and
// another session's restore refuses (*BusyError) while it runs.
// RestoreOptions.Agent gives, file by file, the state the caller's agent
// last left each file in (expect.go), and RestoreOptions.Unsure the files
// it is not sure it changed: both refuse like Expect.
//
// Attribution. A step's patch holds every change made while it ran;
// Attribute (attribute.go) says which are the step's own, from what its
// tools were, when they ran (ToolWindows: every session's tool windows in
// this directory) and when each file changed.
//
// Budget. A tree over a Budget (files, or the time of its first
// snapshot) is checkpointed by tool-known paths only: TakePaths records
// the paths a step names, and a restore to such a snapshot touches only
// the paths it covers (budget.go).
//
// Without git the package is off: Open returns an error wrapping
// ErrUnavailable, saying why, for the caller to show once.
//
// How the loop uses it (wiring is a later step):
//
//	store, err := snapshot.Open(ctx, dataDir, workDir, snapshot.Options{})
//	// err wraps ErrUnavailable: show it once, run without checkpoints.
//	before, _ := store.Take(ctx, sessionID, "before step 3")   // before a step with write/edit/bash
//	end, _ := store.BeginTool(sessionID); runTools(); end()
//	after, _ := store.Take(ctx, sessionID, "after step 3")     // store before.ID, after.ID with the step
//	patch, _ := store.Diff(ctx, before.ID, after.ID)           // the step's patch part; nil Files when equal
//
//	// /undo of a turn (first before, last after):
//	res, err := store.Restore(ctx, sessionID, turnBefore, snapshot.RestoreOptions{Expect: turnAfter})
//	// *OutsideChangesError: ask (TUI) or refuse without --force (headless), then retry with Force.
//	// /redo: store.Restore(ctx, sessionID, res.Before, snapshot.RestoreOptions{Expect: res.After})
//
//	// agent sessions rm: store.DropSession(ctx, id); at start or after expiry:
//	store.Prune(ctx, idsTheDatabaseStillNames, snapshot.DefaultCapBytes)
//
// Cost: a snapshot is one walk of the tree in Go (walk.go: the store's
// index streamed alongside as the stat cache, .gitignore honoured as it
// goes, stat data compared in parallel, a directory whose stat data are
// unchanged not read again (dircache.go, git's untracked cache); ≈ git
// status, see BENCHMARKS.md) that also gives the files' modes and the ignored files; only what
// differs from the store's index is read and stored. A step that changed
// a few files runs no git process: their blobs, the index, the trees of
// the changed directories (the index's cache-tree keeps the others), the
// commit and the ref are written in Go (goindex.go, objwrite.go); many
// changed files, and systems other than Linux, go through git as before.
// In a git repository the store's first index is
// seeded from the user's and the user's objects are borrowed read-only
// (seed.go), so the first snapshot of a clean checkout reads no file
// either and runs no git process (its trees built in Go from the user's
// index, seedtrees.go; the walk reads the seeded entries as they are
// written, seedfeed.go); outside git the first snapshot reads and stores every file, and
// the store's index is the stat cache from then on. More than a `true`
// step's tools. To keep within 10% of a
// step, the loop takes the "after" snapshot while the next request
// streams (the model changes no file; the wait is only before the next
// mutating tool runs), and uses a step's "after" as the next step's
// "before" when no tool ran in between.
package snapshot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ctxloop/agent/internal/gitcmd"
)

// ErrUnavailable is wrapped by Open's error when checkpoints cannot work
// here (git is not installed); the message says why.
var ErrUnavailable = errors.New("checkpoints are off")

const (
	// DefaultMaxFileBytes is the size over which a file is left out of
	// snapshots: larger files are rarely sources, and git would store each
	// version whole.
	DefaultMaxFileBytes = 2 << 20
	// DefaultCapBytes bounds one project's store; Prune removes the oldest
	// snapshots beyond it.
	DefaultCapBytes = 1 << 30
)

// DefaultExcludes are left out of every snapshot besides what the work
// tree's .gitignore files exclude: repositories, dependency trees and
// caches that are large, regenerated, and not the agent's to undo.
var DefaultExcludes = []string{
	".git", "node_modules/", ".venv/", "__pycache__/", ".tox/", ".mypy_cache/",
	".pytest_cache/", ".ruff_cache/", ".next/", ".nuxt/", ".gradle/", ".terraform/",
}

// Options tune a store. The zero value uses the defaults.
type Options struct {
	// MaxFileBytes is the largest file a snapshot holds (0: 2 MB).
	MaxFileBytes int64
	// IgnoredMaxBytes is the largest ignored file a snapshot holds (0:
	// 1 MiB; negative: none), see ignored.go.
	IgnoredMaxBytes int64
	// Exclude adds gitignore patterns to DefaultExcludes.
	Exclude []string
	// Secrets are values (the API key) a file's content may hold that
	// the store must never keep readable: an object holding one is
	// always compressed (packwrite.go), never stored as is.
	Secrets []string
}

// ID names a snapshot: the store's commit, whose tree is the work tree.
type ID string

// Skip is a path a snapshot or a restore left out, and why.
type Skip struct {
	Path   string
	Reason string // one of the Reason constants, or an error's text
	Bytes  int64  // the file's size when it was left out for its size
	// MTime is the file's modification time, and Limit the size it was
	// over, when it was left out for its size.
	MTime time.Time
	Limit int64
	// Status is how the file changed, in LostChanges' answer.
	Status Status
}

// Reasons of a Skip.
const (
	ReasonTooLarge   = "larger than the size limit"
	ReasonUnreadable = "unreadable"
	ReasonNotFile    = "not a regular file, directory or symlink"
	ReasonNested     = "a nested git repository"
	ReasonIgnored    = "ignored (.gitignore or excluded)"
	ReasonOutside    = "outside the directory"
	ReasonNotSaved   = "its current content could not be saved first"
	ReasonNotInSnap  = "not in the snapshot"
	// ReasonGone: the content was the repository's, borrowed (seed.go),
	// and the repository no longer holds it (a git gc removed it).
	ReasonGone = "its content is gone from the repository's objects (removed by git gc?)"
)

// Snapshot is one recorded state of the work tree.
type Snapshot struct {
	ID      ID
	Tree    string // the git tree: equal trees are equal work trees
	Session string
	Label   string
	Time    time.Time
	Skipped []Skip
	// Modes is the blob of the files whose permission bits differ from
	// git's 0644 and 0755 (modes.go); "" when none do.
	Modes string
	// Partial is nil for a snapshot of the whole tree; for a paths-only
	// snapshot (budget.go) the paths it covers, the only ones a restore
	// to it touches.
	Partial []string
	// Parent is the session's previous paths-only snapshot (budget.go).
	Parent ID
}

// Store is one project's snapshot store. Its methods may be called from
// several goroutines and processes: each takes the store's lock.
type Store struct {
	git        gitcmd.Private
	workTree   string
	maxBytes   int64
	ignoredMax int64
	excludes   []string
	lockPath   string
	journal    string

	recovered *RestoreResult

	fast  goPath     // the walk and index update without git (walk.go)
	reuse *lastTakes // the newest snapshot this Store took (reuse.go)

	lastMu      sync.Mutex
	modesText   string // the modes text this Store stored last, and its blob
	modesBlob   string
	partial     map[string][]string // per session: the paths its paths-only snapshots covered (budget.go)
	partialHead map[string]ID       // per session: its newest paths-only snapshot
}

// Open opens (creating it if needed) the store for workDir under
// <dataDir>/snapshots, and finishes a restore a crash interrupted. Without
// git it returns an error wrapping ErrUnavailable.
func Open(ctx context.Context, dataDir, workDir string, opt Options) (*Store, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("%w: git is not installed (%v); /undo, /redo, /rewind and /diff need it, everything else works", ErrUnavailable, err)
	}
	work, data, gitDir, err := storeDirs(dataDir, workDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(gitDir, 0o700); err != nil {
		return nil, fmt.Errorf("open snapshots of %s: %w", work, err)
	}
	s := &Store{
		git: gitcmd.Private{
			GitDir: gitDir, WorkTree: work, IndexFile: filepath.Join(gitDir, "agent-index"),
			ExcludesFile: gitcmd.UserExcludesFile(ctx),
		},
		workTree: work,
		maxBytes: opt.MaxFileBytes,
		lockPath: filepath.Join(gitDir, "agent.lock"),
		journal:  filepath.Join(gitDir, "agent-restore.journal"),
	}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultMaxFileBytes
	}
	switch s.ignoredMax = opt.IgnoredMaxBytes; {
	case s.ignoredMax == 0:
		s.ignoredMax = DefaultIgnoredMaxBytes
	case s.ignoredMax < 0:
		s.ignoredMax = -1
	}
	s.excludes = append(append([]string{}, DefaultExcludes...), opt.Exclude...)
	// The data directory may lie inside the work tree (an agent started in
	// $HOME): the store must not snapshot itself.
	if rel, err := filepath.Rel(work, realPath(data)); err == nil && filepath.IsLocal(rel) {
		s.excludes = append(s.excludes, "/"+filepath.ToSlash(rel)+"/")
	}
	s.fast = goPath{
		gitDir: gitDir, indexFile: s.git.IndexFile, excludesFile: s.git.ExcludesFile,
		workTree: work, maxBytes: s.maxBytes, excludes: s.excludes, secrets: opt.Secrets,
		dirs: newDirCache(filepath.Join(gitDir, "agent-dircache")),
	}
	s.reuse = &lastTakes{indexFile: s.git.IndexFile}

	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := s.init(ctx); err != nil {
		return nil, err
	}
	s.readBorrow()
	res, err := s.recover(ctx)
	if err != nil {
		return nil, err
	}
	s.recovered = res
	return s, nil
}

// storeDirs resolves the work tree and the data directory, and names the
// work tree's store in it.
func storeDirs(dataDir, workDir string) (work, data, gitDir string, err error) {
	work, err = filepath.Abs(workDir)
	if err == nil {
		work, err = filepath.EvalSymlinks(work)
	}
	if err != nil {
		return "", "", "", fmt.Errorf("open snapshots of %s: %w", workDir, err)
	}
	data, err = filepath.Abs(dataDir)
	if err != nil {
		return "", "", "", fmt.Errorf("open snapshots of %s: %w", workDir, err)
	}
	sum := sha256.Sum256([]byte(work))
	return work, data, filepath.Join(data, "snapshots", hex.EncodeToString(sum[:8])), nil
}

// Interrupted reports whether the store of workDir holds the journal of a
// restore a crash interrupted, which the next Open finishes: a background
// cleanup leaves that Open to the session, which reports it.
func Interrupted(dataDir, workDir string) bool {
	_, _, gitDir, err := storeDirs(dataDir, workDir)
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(gitDir, "agent-restore.journal"))
	return err == nil
}

// DiskBytes is how much the store of workDir takes on disk (0 when it
// has none), measured by walking its directory: no git process, so that
// start-up can decide whether the store needs pruning for the price of a
// directory walk.
func DiskBytes(dataDir, workDir string) int64 {
	_, _, gitDir, err := storeDirs(dataDir, workDir)
	if err != nil {
		return 0
	}
	var total int64
	_ = filepath.WalkDir(gitDir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				total += fi.Size()
			}
		}
		return nil
	})
	return total
}

// realPath resolves symlinks in path as far as it exists.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

// init creates the repository on first use and (re)writes the store's
// excludes and attributes, which outrank the work tree's.
func (s *Store) init(ctx context.Context) error {
	gitDir := s.git.GitDir
	if !headMade(gitDir) { // repoinit.go
		// The config names the work tree (core.worktree): no other file.
		if err := initRepo(gitDir, s.workTree); err != nil { // repoinit.go
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
	}
	info := filepath.Join(gitDir, "info")
	if err := os.MkdirAll(info, 0o700); err != nil {
		return fmt.Errorf("init snapshot store %s: %w", gitDir, err)
	}
	attrs := "* -text -ident -filter -working-tree-encoding !diff !merge\n"
	exclude := "# Written by the agent at every start.\n" + strings.Join(s.excludes, "\n") + "\n"
	for name, body := range map[string]string{"attributes": attrs, "exclude": exclude} {
		if err := os.WriteFile(filepath.Join(info, name), []byte(body), 0o600); err != nil {
			return fmt.Errorf("init snapshot store %s: %w", gitDir, err)
		}
	}
	return nil
}

// WorkTree returns the directory the store snapshots (absolute, symlinks
// resolved).
func (s *Store) WorkTree() string { return s.workTree }

// Excludes returns the patterns left out of every snapshot besides the
// work tree's .gitignore files, for "what was skipped" reports.
func (s *Store) Excludes() []string { return append([]string{}, s.excludes...) }

// Recovered returns the restore Open finished after a crash, or nil.
func (s *Store) Recovered() *RestoreResult { return s.recovered }

var sessionRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$`)
}) // compiled on first use, not at start-up

func checkSession(session string) error {
	if !sessionRe().MatchString(session) || strings.Contains(session, "..") || strings.HasSuffix(session, ".lock") {
		return fmt.Errorf("snapshot: session id %q is not usable in a ref name", session)
	}
	return nil
}

// Take snapshots the work tree for session.
func (s *Store) Take(ctx context.Context, session, label string) (Snapshot, error) {
	if err := checkSession(session); err != nil {
		return Snapshot{}, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	defer unlock()
	return s.take(ctx, session, label)
}

// take is Take with the lock held. A take that fails once it may have
// written objects (a full disk, a file the store cannot write) discards
// them (discardFailed): nothing half-written stays behind.
func (s *Store) take(ctx context.Context, session, label string) (snap Snapshot, err error) {
	snap = Snapshot{Session: session, Label: label, Time: time.Now()}
	writing := false
	defer func() {
		if err != nil && writing {
			s.discardFailed(context.WithoutCancel(ctx))
		}
	}()
	// The first snapshot in a git repository (seed.go); its trees are
	// stored while the tree is walked.
	seed, waitSeed := s.seedIndex(ctx, statSupported && !gitWalk)
	if waitSeed != nil {
		defer func() {
			if werr := waitSeed(); werr != nil && err == nil {
				err = werr
			}
		}()
	}
	// One Go walk lists the changed paths, the ignored files and the
	// modes (walk.go); where it cannot run, git walks and the modes and
	// the ignored files are read alongside.
	// A walk that lists many paths holds the collector close to the
	// live heap till the snapshot is stored (gcbound.go).
	watch := new(gcWatch)
	s.fast.watch = watch
	defer func() { s.fast.watch = nil; watch.end() }()
	var wr walkResult
	walked := false
	indexModes := make(chan modesRead, 1)
	ignoredCh := make(chan ignoredRead, 1)
	var werr error
	if wr, werr = s.fast.walkUnlessGit(seed); werr == nil {
		walked = true
		indexModes <- modesRead{wr.modes, nil}
		var r ignoredRead
		if s.ignoredMax >= 0 {
			r.keep, r.skips = s.ignoredFrom(wr.ignored)
		}
		ignoredCh <- r
	} else {
		// The modes of the files as the index has them, read while git
		// walks the tree (modes.go); the changed paths are added after.
		go func() {
			m, err := s.readModes(ctx)
			indexModes <- modesRead{m, err}
		}()
		// The ignored files, listed by a second walk alongside (ignored.go).
		go func() {
			var r ignoredRead
			r.keep, r.skips, r.err = s.ignoredFiles(ctx)
			ignoredCh <- r
		}()
	}
	if err := ctx.Err(); err != nil { // a time budget ran out while it walked
		return snap, fmt.Errorf("snapshot %s: %w", s.workTree, err)
	}
	ignored := (<-chan ignoredRead)(ignoredCh)
	// The paths that differ from the store's index: untracked (not
	// ignored), modified and deleted. Nothing is read but what changed.
	args := []string{"ls-files", "-z", "--others", "--modified", "--deleted", "--exclude-standard"}
	var update, remove []string
	seen, dirOK := map[string]bool{}, map[string]bool{}
	// A first snapshot the Go walk listed is classified by goPath.update
	// as it opens each file (fullstore.go), not here first (an lstat, an
	// open and a close a file); git's path, should it run, classifies.
	late := walked && wr.index == nil && len(wr.changed) <= goUpdateMax()
	for round := 0; round < 8 && args != nil; round++ {
		listed := wr.changed // the Go walk's list, as ls-files gives it
		if round > 0 || !walked {
			out, err := s.git.Output(ctx, nil, args...)
			if err != nil {
				return snap, fmt.Errorf("snapshot %s: %w", s.workTree, err)
			}
			listed = strings.Split(string(out), "\x00")
		}
		var dirs []string
		var classified map[string]*Skip
		if !late {
			classified = classifyAll(s.classify, listed) // classify.go
		}
		for _, p := range listed {
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			if dir, ok := strings.CutSuffix(p, "/"); ok {
				snap.Skipped = append(snap.Skipped, s.nestedSkip(dir))
				continue
			}
			// A first walk's paths (no index: nothing hid a directory
			// that became a file) lie under the directories it opened:
			// not looked up again (hashrun_linux.go opens them without
			// following a link).
			anc := ""
			if round > 0 || !walked || wr.index != nil {
				anc = s.blockedBy(p, dirOK)
			}
			if anc != "" {
				// A directory became a file or symlink: p is gone, and
				// the index's entries under it hid anc from the walk.
				update = append(update, p)
				if seen[anc] {
					continue
				}
				seen[anc] = true
				p = anc
			}
			skip, ok := classified[p]
			if !ok && !late {
				skip = s.classify(p)
			}
			switch {
			case skip == nil:
				update = append(update, p)
			case skip.Reason == "":
				dirs = append(dirs, p)
			default:
				snap.Skipped = append(snap.Skipped, *skip)
				remove = append(remove, p)
			}
		}
		args = nil
		if len(dirs) > 0 {
			ignored = nil // the index changes: listed again after
			walked = false
			// A file or symlink became a directory: while the index holds
			// it, git does not walk into it. Out of the index, then list
			// what the directory holds.
			if _, err := s.git.Output(ctx, nulJoin(dirs), "update-index", "-z", "--force-remove", "--stdin"); err != nil {
				return snap, fmt.Errorf("snapshot %s: %w", s.workTree, err)
			}
			args = append([]string{"ls-files", "-z", "--others", "--exclude-standard", "--"}, dirs...)
		}
	}
	// The walk's lists are consumed: not held through the update (at
	// 100,000 paths, 1.6 MB of string headers beside update's).
	wr.changed, wr.ignored = nil, nil
	fresh := walked && wr.index == nil // a first snapshot the Go walk listed
	classSkips := len(snap.Skipped)    // where classify's skips end
	if err := s.limitIgnored(ctx, &update, &remove, &snap.Skipped, ignored, fresh); err != nil {
		return snap, err
	}
	im := <-indexModes
	if im.err != nil {
		return snap, im.err
	}
	// A late-classified first snapshot's modes are noted as its files are
	// opened (fullstore.go), not lstat'ed each here.
	modes := ""
	if !late || len(update) == 0 {
		modes = updatedModes(s.workTree, im.modes, update, remove)
	}
	if len(update) == 0 {
		if prev, ok := s.reuse.reusable(session, remove, modes); ok {
			prev.Label, prev.Time = label, snap.Time
			return prev, nil
		}
	}
	if beforeIndexHook != nil {
		beforeIndexHook(update)
	}
	writing = true
	if failHook != nil {
		if err := failHook(s, update); err != nil {
			return snap, fmt.Errorf("snapshot %s: %w", s.workTree, err)
		}
	}
	// A few changed files: stored, and the changed trees written, in Go
	// (goindex.go); else, or when it declines, by git.
	goTree := ""
	lateSkips := len(snap.Skipped)
	if walked && len(update)+len(remove) <= goUpdateMax() {
		skips := len(snap.Skipped)
		if late {
			s.fast.perms = new(permLog)
		}
		goTree, err = s.fast.update(update, remove, &snap.Skipped, wr, progressOf(ctx, snap.Time))
		perms := s.fast.perms
		s.fast.perms = nil
		if late && goTree != "" {
			modes = perms.text(im.modes, remove)
		}
		if errors.Is(err, errGoUpdate) {
			goTree, err = "", nil
			snap.Skipped = snap.Skipped[:skips]
		}
		if err != nil {
			return snap, fmt.Errorf("snapshot %s: %w", s.workTree, err)
		}
		if goTree != "" {
			goUpdates.Add(1)
		}
	}
	if goTree == "" && late {
		update = classifyLate(s.classify, update, &remove, &snap.Skipped)
		modes = updatedModes(s.workTree, im.modes, update, remove)
	}
	if late { // what was left out, said where classify says it
		added := slices.Clone(snap.Skipped[lateSkips:])
		snap.Skipped = slices.Insert(snap.Skipped[:lateSkips], classSkips, added...)
	}
	if goTree == "" {
		if err := updateIndexChunked(ctx, s, update, &snap.Skipped, progressOf(ctx, snap.Time)); err != nil {
			return snap, err
		}
		if len(remove) > 0 {
			if _, err := s.git.Output(ctx, nulJoin(remove), "update-index", "-z", "--force-remove", "--stdin"); err != nil {
				return snap, fmt.Errorf("snapshot %s: %w", s.workTree, err)
			}
		}
	}
	blob, err := s.storeModes(ctx, modes)
	if err != nil {
		return snap, err
	}
	snap.Modes = blob
	if goTree != "" {
		snap.Tree = goTree
		// Files hashed again and found unchanged (racily clean ones):
		// the same tree as the last snapshot is that snapshot.
		if prev, ok := s.reuse.sameAsLast(session, snap.Tree, remove, modes); ok {
			prev.Label, prev.Time = label, snap.Time
			return prev, nil
		}
	} else {
		tree, err := s.git.Output(ctx, nil, "write-tree", "--missing-ok") // borrowed blobs: seed.go
		if err != nil {
			return snap, fmt.Errorf("snapshot %s: %w", s.workTree, err)
		}
		snap.Tree = strings.TrimSpace(string(tree))
	}
	if waitSeed != nil {
		if err := waitSeed(); err != nil {
			return snap, err
		}
	}
	// The commit and the ref in Go: two processes fewer (objwrite.go).
	commit, err := writeObject(s.git.GitDir, "commit", commitBody(snap.Tree, commitMessage(snap), time.Now()))
	if err != nil {
		return snap, fmt.Errorf("snapshot %s: %w", s.workTree, err)
	}
	snap.ID = ID(commit)
	if err := writeRef(s.git.GitDir, s.ref(session, snap.ID), string(snap.ID)); err != nil {
		return snap, fmt.Errorf("snapshot %s: %w", s.workTree, err)
	}
	s.reuse.remember(session, snap, remove, modes)
	return snap, nil
}

func (s *Store) ref(session string, id ID) string { return "refs/agent/" + session + "/" + string(id) }

// blockedBy returns the first ancestor of p that is not a real directory
// (a file or a symlink now), or "". dirOK caches the directories seen.
func (s *Store) blockedBy(p string, dirOK map[string]bool) string {
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		anc := p[:i]
		if dirOK[anc] {
			continue
		}
		fi, err := os.Lstat(filepath.Join(s.workTree, filepath.FromSlash(anc)))
		if err != nil {
			return "" // gone: p is gone with it, nothing hides
		}
		if !fi.IsDir() {
			return anc
		}
		dirOK[anc] = true
	}
	return ""
}

// classify decides whether the changed path p goes into the snapshot: nil
// to add (or remove, when it is gone), a Skip with a reason to leave it out
// and report it, an empty Skip to drop it from the index silently.
func (s *Store) classify(p string) *Skip {
	abs := filepath.Join(s.workTree, filepath.FromSlash(p))
	fi, err := os.Lstat(abs)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	if err != nil {
		return &Skip{Path: p, Reason: ReasonUnreadable}
	}
	if skip := decide(p, fi.Mode(), fi.Size(), s.maxBytes); skip != nil || !fi.Mode().IsRegular() {
		if skip != nil && skip.Reason == ReasonTooLarge {
			skip.MTime, skip.Limit = fi.ModTime(), s.maxBytes
		}
		return skip
	}
	// Readable? An open and a close, no more: not os.Open's poller
	// registration (two system calls more a file, on a first snapshot
	// every file); not blocking should a FIFO have taken its place.
	fd, err := syscall.Open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return &Skip{Path: p, Reason: ReasonUnreadable}
	}
	syscall.Close(fd)
	return nil
}

// decide is the pure part of classify: what a path of this type and size
// becomes.
func decide(p string, mode os.FileMode, sizeBytes, maxBytes int64) *Skip {
	switch {
	case mode&os.ModeSymlink != 0:
		return nil
	case mode.IsDir():
		return &Skip{Path: p}
	case !mode.IsRegular():
		return &Skip{Path: p, Reason: ReasonNotFile}
	case sizeBytes > maxBytes:
		return &Skip{Path: p, Reason: ReasonTooLarge, Bytes: sizeBytes}
	}
	return nil
}

// failedPathRe finds the path git could not add ("fatal: unable to process
// path x", or the error line before it naming the file).
var failedPathRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)unable to (?:process path|index file) '?(.+?)'?$`)
})

// beforeIndexHook, when set (tests), runs between the checks of the changed
// paths and git's reading of them.
var beforeIndexHook func(paths []string)

// updateIndex adds (or, when gone, removes) paths. A file that turns
// unreadable between the check and git's read makes git stop: it is
// reported as skipped and the rest retried.
func (s *Store) updateIndex(ctx context.Context, paths []string, skipped *[]Skip) error {
	for attempt := 0; len(paths) > 0; attempt++ {
		_, err := s.git.Output(ctx, nulJoin(paths), "update-index", "-z", "--add", "--remove", "--replace", "--stdin")
		if err == nil {
			return nil
		}
		m := failedPathRe().FindStringSubmatch(err.Error())
		if m == nil || attempt >= 20 {
			return fmt.Errorf("snapshot %s: %w", s.workTree, err)
		}
		bad := m[1]
		kept := paths[:0]
		for _, p := range paths {
			if p != bad {
				kept = append(kept, p)
			}
		}
		if len(kept) == len(paths) {
			return fmt.Errorf("snapshot %s: %w", s.workTree, err)
		}
		reason := ReasonUnreadable
		if !strings.Contains(err.Error(), "Permission denied") {
			reason = "git could not add it"
		}
		*skipped = append(*skipped, Skip{Path: bad, Reason: reason})
		s.git.Output(ctx, []byte(bad+"\x00"), "update-index", "-z", "--force-remove", "--stdin")
		paths = kept
	}
	return nil
}

func nulJoin(paths []string) []byte {
	var b bytes.Buffer
	for _, p := range paths {
		b.WriteString(p)
		b.WriteByte(0)
	}
	return b.Bytes()
}

// maxSkipsRecorded bounds the skip list kept in a snapshot's commit.
const maxSkipsRecorded = 1000

// commitMessage records a snapshot's label, session and skipped paths in
// its commit; parseCommit reads them back.
func commitMessage(snap Snapshot) string {
	var b strings.Builder
	b.WriteString("agent snapshot: " + strings.ReplaceAll(snap.Label, "\n", " ") + "\n\n")
	b.WriteString("session: " + snap.Session + "\n")
	if snap.Modes != "" {
		b.WriteString("modes: " + snap.Modes + "\n")
	}
	if snap.Partial != nil {
		b.WriteString("partial: " + strconv.Itoa(len(snap.Partial)) + "\n")
		for _, p := range snap.Partial {
			b.WriteString("partial-path: " + strconv.Quote(p) + "\n")
		}
	}
	for i, sk := range snap.Skipped {
		if i == maxSkipsRecorded {
			fmt.Fprintf(&b, "skipped-more: %d\n", len(snap.Skipped)-i)
			break
		}
		fmt.Fprintf(&b, "skipped: %d %s %s", sk.Bytes, strconv.Quote(sk.Reason), strconv.Quote(sk.Path))
		if !sk.MTime.IsZero() || sk.Limit != 0 {
			var mtime int64
			if !sk.MTime.IsZero() {
				mtime = sk.MTime.UnixNano()
			}
			fmt.Fprintf(&b, " %d %d", mtime, sk.Limit)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// parseCommit reads a snapshot's commit object (git cat-file commit).
func parseCommit(id ID, body string) Snapshot {
	snap := Snapshot{ID: id}
	header, msg, _ := strings.Cut(body, "\n\n")
	for _, line := range strings.Split(header, "\n") {
		if v, ok := strings.CutPrefix(line, "tree "); ok {
			snap.Tree = v
		}
		if v, ok := strings.CutPrefix(line, "parent "); ok {
			snap.Parent = ID(v)
		}
		if v, ok := strings.CutPrefix(line, "committer "); ok {
			f := strings.Fields(v)
			if len(f) >= 2 {
				if sec, err := strconv.ParseInt(f[len(f)-2], 10, 64); err == nil {
					snap.Time = time.Unix(sec, 0)
				}
			}
		}
	}
	for _, line := range strings.Split(msg, "\n") {
		switch {
		case strings.HasPrefix(line, "agent snapshot: "):
			snap.Label = strings.TrimPrefix(line, "agent snapshot: ")
		case strings.HasPrefix(line, "session: "):
			snap.Session = strings.TrimPrefix(line, "session: ")
		case strings.HasPrefix(line, "modes: "):
			snap.Modes = strings.TrimPrefix(line, "modes: ")
		case strings.HasPrefix(line, "partial: "):
			if snap.Partial == nil {
				snap.Partial = []string{}
			}
		case strings.HasPrefix(line, "partial-path: "):
			if p, err := strconv.Unquote(strings.TrimPrefix(line, "partial-path: ")); err == nil {
				snap.Partial = append(snap.Partial, p)
			}
		case strings.HasPrefix(line, "skipped: "):
			rest := strings.TrimPrefix(line, "skipped: ")
			n, rest, _ := strings.Cut(rest, " ")
			size, _ := strconv.ParseInt(n, 10, 64)
			reason, rest, err := unquotePrefix(rest)
			if err != nil {
				continue
			}
			path, rest, err := unquotePrefix(strings.TrimPrefix(rest, " "))
			if err != nil {
				continue
			}
			sk := Skip{Path: path, Reason: reason, Bytes: size}
			if f := strings.Fields(rest); len(f) == 2 {
				if ns, _ := strconv.ParseInt(f[0], 10, 64); ns != 0 {
					sk.MTime = time.Unix(0, ns)
				}
				sk.Limit, _ = strconv.ParseInt(f[1], 10, 64)
			}
			snap.Skipped = append(snap.Skipped, sk)
		}
	}
	return snap
}

func unquotePrefix(s string) (string, string, error) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", s, err
	}
	v, err := strconv.Unquote(q)
	return v, s[len(q):], err
}

// Get reads the snapshot id: its tree, session, label, time and skips.
func (s *Store) Get(ctx context.Context, id ID) (Snapshot, error) {
	if err := checkID(id); err != nil {
		return Snapshot{}, err
	}
	out, err := s.git.Output(ctx, nil, "cat-file", "commit", string(id))
	if err != nil {
		return Snapshot{}, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	return parseCommit(id, string(out)), nil
}

var idRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)
})

func checkID(id ID) error {
	if !idRe().MatchString(string(id)) {
		return fmt.Errorf("snapshot: %q is not a snapshot id", id)
	}
	return nil
}
