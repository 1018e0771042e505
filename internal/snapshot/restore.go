package snapshot

// restore.go: putting a snapshot back. The order, under the store's lock:
// refuse if another session runs a tool; snapshot the tree as it is
// (Before, the undo of this restore); compare it with Expect and refuse on
// outside changes unless forced; list the changes Before → target; write
// them to the journal and fsync it; delete, then write, each file (a
// temporary file renamed over the old, so a file is old or new, never
// half); remove the journal; snapshot again (After). A crash between the
// journal and its removal leaves the journal, and Open applies it again —
// every step is idempotent — so the tree ends as the target either way.
// Files are not fsynced one by one: a killed process loses nothing the
// kernel has; a power cut may, like any editor's save.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// RestoreOptions narrow and guard a restore.
type RestoreOptions struct {
	// Paths limits the restore to these files or directories (relative to
	// the work tree, or absolute inside it); none means the whole tree.
	Paths []string
	// Expect is the snapshot the caller believes the tree matches (the
	// "after" of the last step). When set, changes made since (outside the
	// agent) within the restore's scope make Restore refuse with an
	// *OutsideChangesError, touching nothing.
	Expect ID
	// Agent lists, file by file, the states the caller's agent left the
	// files in (expect.go): a file in scope that differs from its state
	// was changed by someone else, and makes Restore refuse like Expect.
	Agent []Expectation
	// Unsure names files (with why) the caller is not sure its agent
	// changed: a restore that would touch one refuses like Expect.
	Unsure map[string]string
	// Force restores despite outside changes (they are still listed).
	Force bool
}

// RestoreResult says exactly what a restore did.
type RestoreResult struct {
	Session string
	To      ID
	// Before is the snapshot taken just before: restoring it undoes this
	// restore. After is the snapshot taken just after (zero when the
	// restore stopped before touching anything).
	Before, After ID
	// Restored are the changes made, relative to Before.
	Restored []FileChange
	// NotRestored are the paths left as they were, with the reason.
	NotRestored []Skip
	// Outside are the changes since RestoreOptions.Expect (all of them,
	// in scope or not).
	Outside []FileChange
	// Recovered is set on the result of a restore a crash interrupted and
	// Open finished.
	Recovered bool
}

// OutsideChangesError is a restore's refusal: files in its scope changed
// since the expected snapshot, by someone other than the agent.
type OutsideChangesError struct {
	Expect ID
	Files  []FileChange
	// Why says, for a file in Files, why it is not taken for the agent's
	// when it is not a change since (RestoreOptions.Unsure).
	Why map[string]string
}

func (e *OutsideChangesError) Error() string {
	names := make([]string, 0, 5)
	for i, f := range e.Files {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(e.Files)-5))
			break
		}
		names = append(names, f.Path+" ("+f.Status.String()+")")
	}
	return "snapshot: files changed outside the agent, or not surely by it: " + strings.Join(names, ", ")
}

// journalEntry is the restore journal's content.
type journalEntry struct {
	Session string
	To      ID
	Before  ID
	Ops     []FileChange
}

// afterApplyHook, when set (tests), runs after each file a restore applies.
var afterApplyHook func(done int)

// Restore puts the work tree (or opt.Paths in it) back as snapshot to has
// it, for session.
func (s *Store) Restore(ctx context.Context, session string, to ID, opt RestoreOptions) (*RestoreResult, error) {
	if err := checkSession(session); err != nil {
		return nil, err
	}
	if err := checkID(to); err != nil {
		return nil, err
	}
	if opt.Expect != "" {
		if err := checkID(opt.Expect); err != nil {
			return nil, err
		}
	}
	for _, e := range opt.Agent {
		for _, id := range []ID{e.At, e.Against} {
			if id == "" {
				continue
			}
			if err := checkID(id); err != nil {
				return nil, err
			}
		}
	}
	res := &RestoreResult{Session: session, To: to}
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if other := s.busySession(session); other != "" {
		return nil, &BusyError{Session: other}
	}
	target, err := s.Get(ctx, to)
	if err != nil {
		return nil, err
	}
	scope, outside := s.scope(opt.Paths)
	res.NotRestored = append(res.NotRestored, outside...)
	if len(opt.Paths) > 0 && len(scope) == 0 {
		return res, nil // every path named is outside: restore nothing, not everything
	}
	take, own := s.take, scope
	var later map[ID][]string
	if target.Partial != nil { // a paths-only snapshot (budget.go): its paths only
		var lost []Skip
		own, later, lost, err = pathsOnly{s}.plan(ctx, target, opt.Expect, scope, len(opt.Paths) > 0)
		if err != nil {
			return nil, err
		}
		res.NotRestored = append(res.NotRestored, lost...)
		scope = slices.Clone(own)
		for _, ps := range later {
			scope = mergePaths(scope, ps)
		}
		if len(scope) == 0 {
			return res, nil
		}
		take = func(ctx context.Context, session, label string) (Snapshot, error) {
			return pathsOnly{s}.take(ctx, session, label, scope)
		}
	}

	before, err := take(ctx, session, "before restoring "+string(to))
	if err != nil {
		return nil, err
	}
	res.Before = before.ID
	if opt.Expect != "" {
		res.Outside, err = s.changes(ctx, opt.Expect, before.ID, nil)
		if err != nil {
			return nil, err
		}
	}
	agent, err := s.checkExpectations(ctx, opt.Agent, before.ID)
	if err != nil {
		return nil, err
	}
	res.Outside = mergeChanges(res.Outside, agent)
	changes, err := s.changes(ctx, before.ID, to, own)
	if err != nil {
		return nil, err
	}
	for from, paths := range later { // paths-only: named after the target (budget.go)
		more, err := s.changes(ctx, before.ID, from, paths)
		if err != nil {
			return nil, err
		}
		changes = append(changes, more...)
	}
	if refuse := unsureChanges(filterScope(res.Outside, scope), changes, opt.Unsure); len(refuse.Files) > 0 && !opt.Force {
		refuse.Expect = opt.Expect
		s.nameSessions(refuse, session)
		return res, refuse
	}
	ops, kept := planOps(changes, before.Skipped, target.Skipped, s.exists)
	res.NotRestored = append(res.NotRestored, kept...)
	res.NotRestored = append(res.NotRestored, notInSnapshot(target.Skipped, scope, kept)...)

	ops, gone, err := pruned{s}.check(ctx, ops) // gone.go: all or nothing
	if err != nil {
		return nil, err
	}
	if len(gone) > 0 && !opt.Force {
		return res, &PrunedError{Paths: gone}
	}
	for _, p := range gone {
		res.NotRestored = append(res.NotRestored, Skip{Path: p, Reason: ReasonGone})
	}
	if len(ops) > 0 {
		if err := s.writeJournal(journalEntry{Session: session, To: to, Before: before.ID, Ops: ops}); err != nil {
			return nil, err
		}
		done, failed := s.apply(ctx, ops)
		res.Restored, res.NotRestored = done, append(res.NotRestored, failed...)
		if err := os.Remove(s.journal); err != nil {
			return res, fmt.Errorf("restore %s: remove journal: %w", to, err)
		}
	}
	res.NotRestored = append(res.NotRestored, s.ignored(ctx, scope, ops)...)
	after, err := take(ctx, session, "after restoring "+string(to))
	if err != nil {
		return res, err
	}
	res.After = after.ID
	return res, nil
}

// Exists reports whether rel is in the work tree now.
func (s *Store) Exists(rel string) bool { return s.exists(rel) }

func (s *Store) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(s.workTree, filepath.FromSlash(rel)))
	return err == nil
}

// scope turns the caller's paths into paths relative to the work tree;
// those outside it are returned as skips.
func (s *Store) scope(paths []string) (rel []string, outside []Skip) {
	for _, p := range paths {
		r := p
		if filepath.IsAbs(p) {
			var err error
			if r, err = filepath.Rel(s.workTree, realPath(p)); err != nil {
				r = ".."
			}
		}
		r = filepath.Clean(r)
		if r == "." {
			return nil, outside // the whole tree
		}
		if !filepath.IsLocal(r) {
			outside = append(outside, Skip{Path: p, Reason: ReasonOutside})
			continue
		}
		rel = append(rel, filepath.ToSlash(r))
	}
	return rel, outside
}

// inScope reports whether path is one of scope or under one of them; an
// empty scope is the whole tree.
func inScope(path string, scope []string) bool {
	if len(scope) == 0 {
		return true
	}
	for _, s := range scope {
		if path == s || strings.HasPrefix(path, s+"/") {
			return true
		}
	}
	return false
}

// unsureChanges is the refusal a restore owes: the outside changes in
// scope, and the changes it would make to files the caller is unsure of.
func unsureChanges(outside, changes []FileChange, unsure map[string]string) *OutsideChangesError {
	e := &OutsideChangesError{Files: outside}
	listed := map[string]bool{}
	for _, f := range outside {
		listed[f.Path] = true
	}
	for _, c := range changes {
		if why, ok := unsure[c.Path]; ok && !listed[c.Path] {
			if e.Why == nil {
				e.Why = map[string]string{}
			}
			e.Why[c.Path] = why
			e.Files = append(e.Files, c)
		}
	}
	return e
}

// nameSessions says, for the refused files that changed while another
// session ran a tool here, which session (where known).
func (s *Store) nameSessions(e *OutsideChangesError, self string) {
	var windows []Window
	for _, f := range e.Files {
		if e.Why[f.Path] != "" {
			continue
		}
		t, ok := s.ChangeTime(f.Path)
		if !ok {
			continue
		}
		if windows == nil {
			windows = s.ToolWindows(t.Add(-windowKeep))
		}
		if other := otherSession(windows, self, t); other != "" {
			if e.Why == nil {
				e.Why = map[string]string{}
			}
			e.Why[f.Path] = "changed while session " + other + " ran a tool"
		}
	}
}

// mergeChanges appends to a the changes of b whose paths a lacks.
func mergeChanges(a, b []FileChange) []FileChange {
	have := map[string]bool{}
	for _, f := range a {
		have[f.Path] = true
	}
	for _, f := range b {
		if !have[f.Path] {
			a = append(a, f)
		}
	}
	return a
}

func filterScope(files []FileChange, scope []string) []FileChange {
	var out []FileChange
	for _, f := range files {
		if inScope(f.Path, scope) {
			out = append(out, f)
		}
	}
	return out
}

// planOps decides which changes a restore makes (pure: exists answers
// whether a path is in the work tree now). It keeps out nested
// repositories; a deletion of what the target snapshot could not hold (the
// file existed then, too large to save); and an overwrite of a file the
// Before snapshot could not save, which no undo could bring back.
func planOps(changes []FileChange, beforeSkips, targetSkips []Skip, exists func(string) bool) (ops []FileChange, kept []Skip) {
	under := func(path string, skips []Skip) bool {
		for _, sk := range skips {
			if path == sk.Path || strings.HasPrefix(path, sk.Path+"/") {
				return true
			}
		}
		return false
	}
	for _, c := range changes {
		switch {
		case c.NewMode == "160000" || c.OldMode == "160000":
			kept = append(kept, Skip{Path: c.Path, Reason: ReasonNested})
		case c.Status == Deleted && under(c.Path, targetSkips):
			kept = append(kept, Skip{Path: c.Path, Reason: ReasonNotInSnap})
		case c.Status != Deleted && under(c.Path, beforeSkips) && exists(c.Path):
			kept = append(kept, Skip{Path: c.Path, Reason: ReasonNotSaved})
		default:
			ops = append(ops, c)
		}
	}
	return ops, kept
}

// notInSnapshot lists the target's skips in scope (not already reported):
// paths the restore cannot bring back because the snapshot never held them.
func notInSnapshot(targetSkips []Skip, scope []string, reported []Skip) []Skip {
	seen := map[string]bool{}
	for _, r := range reported {
		seen[r.Path] = true
	}
	var out []Skip
	for _, sk := range targetSkips {
		if !seen[sk.Path] && inScope(sk.Path, scope) {
			out = append(out, Skip{Path: sk.Path, Reason: ReasonNotInSnap + " (" + sk.Reason + ")", Bytes: sk.Bytes})
		}
	}
	return out
}

// ignored reports the requested paths that nothing restored because git
// ignores them.
func (s *Store) ignored(ctx context.Context, scope []string, ops []FileChange) []Skip {
	var ask []string
	for _, p := range scope {
		touched := false
		for _, op := range ops {
			if inScope(op.Path, []string{p}) {
				touched = true
				break
			}
		}
		if !touched {
			ask = append(ask, p)
		}
	}
	if len(ask) == 0 {
		return nil
	}
	out, _ := s.git.Output(ctx, nulJoin(ask), "check-ignore", "-z", "--stdin")
	var skips []Skip
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			skips = append(skips, Skip{Path: p, Reason: ReasonIgnored})
		}
	}
	return skips
}

func (s *Store) writeJournal(j journalEntry) error {
	body, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("restore %s: journal: %w", j.To, err)
	}
	tmp := s.journal + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("restore %s: journal: %w", j.To, err)
	}
	_, err = f.Write(body)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.journal)
	}
	if err == nil {
		err = syncDir(filepath.Dir(s.journal))
	}
	if err != nil {
		return fmt.Errorf("restore %s: journal: %w", j.To, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// recover finishes a restore a crash interrupted (the lock is held).
func (s *Store) recover(ctx context.Context) (*RestoreResult, error) {
	body, err := os.ReadFile(s.journal)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("recover restore: %w", err)
	}
	var j journalEntry
	if err := json.Unmarshal(body, &j); err != nil {
		// A journal is renamed into place whole; one that does not parse
		// was never acted on.
		os.Remove(s.journal)
		return nil, nil
	}
	res := &RestoreResult{Session: j.Session, To: j.To, Before: j.Before, Recovered: true}
	res.Restored, res.NotRestored = s.apply(ctx, j.Ops)
	if err := os.Remove(s.journal); err != nil {
		return res, fmt.Errorf("recover restore: %w", err)
	}
	return res, nil
}

// apply makes the changes: deletions first (a file may give way to a
// directory), then writes in path order. It returns what it did and what
// failed.
func (s *Store) apply(ctx context.Context, ops []FileChange) (done []FileChange, failed []Skip) {
	sorted := append([]FileChange{}, ops...)
	sort.SliceStable(sorted, func(i, j int) bool {
		di, dj := sorted[i].NewMode == zeroMode, sorted[j].NewMode == zeroMode
		if di != dj {
			return di
		}
		return sorted[i].Path < sorted[j].Path
	})
	var blobs *blobReader
	defer func() {
		if blobs != nil {
			blobs.close()
		}
	}()
	for n, op := range sorted {
		var err error
		if !filepath.IsLocal(filepath.FromSlash(op.Path)) {
			err = errors.New(ReasonOutside)
		} else if op.NewMode == zeroMode {
			err = s.remove(op.Path)
		} else if op.ModeOnly {
			err = s.chmod(op)
		} else {
			if blobs == nil {
				if blobs, err = s.openBlobs(ctx); err != nil {
					blobs = nil
				}
			}
			if blobs != nil {
				err = s.write(op, blobs)
			}
		}
		if err != nil {
			failed = append(failed, Skip{Path: op.Path, Reason: err.Error()})
		} else {
			done = append(done, op)
		}
		if afterApplyHook != nil {
			afterApplyHook(n + 1)
		}
	}
	return done, failed
}

const zeroMode = "000000"

// tmpName is where write prepares path's new content: fixed, so a restore
// finished after a crash removes what the crash left.
func tmpName(abs string) string { return abs + ".agent-restore.tmp" }

func (s *Store) remove(rel string) error {
	abs := filepath.Join(s.workTree, filepath.FromSlash(rel))
	os.Remove(tmpName(abs))
	if err := os.Remove(abs); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// Remove the directories the deletion emptied, up to the work tree.
	for dir := filepath.Dir(abs); dir != s.workTree && strings.HasPrefix(dir, s.workTree+string(filepath.Separator)); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break
		}
	}
	return nil
}

// checkParents refuses a path whose parent directory is a symlink (the
// write would land elsewhere) or a file.
func (s *Store) checkParents(rel string) error {
	parts := strings.Split(rel, "/")
	dir := s.workTree
	for _, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("parent %s is a symlink", dir)
		}
		if !fi.IsDir() {
			return fmt.Errorf("parent %s is not a directory", dir)
		}
	}
	return nil
}

func (s *Store) write(op FileChange, blobs *blobReader) error {
	if err := s.checkParents(op.Path); err != nil {
		return err
	}
	abs := filepath.Join(s.workTree, filepath.FromSlash(op.Path))
	if err := os.MkdirAll(filepath.Dir(abs), 0o777); err != nil {
		return err
	}
	tmp := tmpName(abs)
	os.Remove(tmp)
	if op.NewMode == "120000" {
		var target strings.Builder
		if err := blobs.copy(op.NewBlob, &target); err != nil {
			return err
		}
		if err := os.Symlink(target.String(), tmp); err != nil {
			return err
		}
	} else {
		exec := op.NewMode == "100755"
		perm, keep := os.FileMode(0o666), false
		if exec {
			perm = 0o777
		}
		if fi, err := os.Lstat(abs); err == nil && fi.Mode().IsRegular() {
			perm, keep = fi.Mode().Perm(), true
			if exec {
				perm |= (perm & 0o444) >> 2
			} else {
				perm &^= 0o111
			}
		}
		if op.NewPerm != 0 {
			perm, keep = fileMode(op.NewPerm), true // the snapshot's exact bits
		}
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm&os.ModePerm)
		if err != nil {
			return err
		}
		err = blobs.copy(op.NewBlob, f)
		if err == nil && keep {
			err = f.Chmod(perm)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(tmp)
			return err
		}
	}
	if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
		os.Remove(abs) // an empty directory gives way; a full one fails the rename
	}
	if err := os.Rename(tmp, abs); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// chmod gives a file whose mode alone changed the snapshot's bits.
func (s *Store) chmod(op FileChange) error {
	if err := s.checkParents(op.Path); err != nil {
		return err
	}
	abs := filepath.Join(s.workTree, filepath.FromSlash(op.Path))
	fi, err := os.Lstat(abs)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is no longer a regular file", op.Path)
	}
	return os.Chmod(abs, fileMode(op.NewPerm))
}

// blobReader reads objects from one `git cat-file --batch`, streaming each
// into its destination.
type blobReader struct {
	cancel context.CancelFunc
	wait   func() error
	in     io.WriteCloser
	out    *bufio.Reader
}

func (s *Store) openBlobs(ctx context.Context) (*blobReader, error) {
	ctx, cancel := context.WithCancel(ctx)
	cmd := s.git.Command(ctx, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	return &blobReader{cancel: cancel, wait: cmd.Wait, in: in, out: bufio.NewReaderSize(out, 64<<10)}, nil
}

func (b *blobReader) copy(oid string, w io.Writer) error {
	if _, err := io.WriteString(b.in, oid+"\n"); err != nil {
		return fmt.Errorf("read object %s: %w", oid, err)
	}
	header, err := b.out.ReadString('\n')
	if err != nil {
		return fmt.Errorf("read object %s: %w", oid, err)
	}
	f := strings.Fields(header)
	if len(f) == 2 && f[1] == "missing" {
		return errors.New(ReasonGone)
	}
	if len(f) != 3 || f[1] != "blob" {
		return fmt.Errorf("read object %s: %s", oid, strings.TrimSpace(header))
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return fmt.Errorf("read object %s: %w", oid, err)
	}
	if _, err := io.CopyN(w, b.out, size); err != nil {
		return fmt.Errorf("read object %s: %w", oid, err)
	}
	if _, err := b.out.ReadByte(); err != nil { // the LF after the content
		return fmt.Errorf("read object %s: %w", oid, err)
	}
	return nil
}

func (b *blobReader) close() {
	b.in.Close()
	b.wait()
	b.cancel()
}
