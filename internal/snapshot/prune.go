package snapshot

// prune.go: bounded storage. Git's object store deduplicates (an unchanged
// file costs nothing in a new snapshot); each snapshot is kept alive by its
// ref, refs/agent/<session>/<id>, and a snapshot whose ref is deleted is
// gone at the next collection (git gc --prune=now: repack the reachable
// objects, drop the rest).

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Stats describe a store.
type Stats struct {
	Snapshots int
	Sessions  int
	SizeBytes int64 // objects on disk, loose and packed
}

// snapRef is one snapshot's ref.
type snapRef struct {
	ref     string
	session string
	id      ID
	unixS   int64
}

func (s *Store) refs(ctx context.Context, prefix string) ([]snapRef, error) {
	out, err := s.git.Output(ctx, nil, "for-each-ref", "--format=%(refname) %(objectname) %(committerdate:unix)", prefix)
	if err != nil {
		return nil, fmt.Errorf("list snapshots: %w", err)
	}
	var refs []snapRef
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		rest := strings.TrimPrefix(f[0], "refs/agent/")
		session, _, _ := strings.Cut(rest, "/")
		unix, _ := strconv.ParseInt(f[2], 10, 64)
		refs = append(refs, snapRef{ref: f[0], session: session, id: ID(f[1]), unixS: unix})
	}
	return refs, nil
}

// Stats counts the store's snapshots and sessions and measures its size.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return Stats{}, err
	}
	defer unlock()
	return s.stats(ctx)
}

func (s *Store) stats(ctx context.Context) (Stats, error) {
	refs, err := s.refs(ctx, "refs/agent/")
	if err != nil {
		return Stats{}, err
	}
	sessions := map[string]bool{}
	for _, r := range refs {
		sessions[r.session] = true
	}
	size, err := s.size(ctx)
	return Stats{Snapshots: len(refs), Sessions: len(sessions), SizeBytes: size}, err
}

func (s *Store) size(ctx context.Context) (int64, error) {
	out, err := s.git.Output(ctx, nil, "count-objects", "-v")
	if err != nil {
		return 0, fmt.Errorf("measure snapshot store: %w", err)
	}
	return parseCountObjects(string(out)), nil
}

// parseCountObjects sums the sizes (KiB) `git count-objects -v` reports.
func parseCountObjects(out string) int64 {
	var kib int64
	for _, line := range strings.Split(out, "\n") {
		name, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		switch name {
		case "size", "size-pack", "size-garbage":
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			kib += n
		}
	}
	return kib << 10
}

// DropSession deletes session's snapshots and collects what only they
// held (for `agent sessions rm`).
func (s *Store) DropSession(ctx context.Context, session string) error {
	if err := checkSession(session); err != nil {
		return err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	refs, err := s.refs(ctx, "refs/agent/"+session+"/")
	if err != nil {
		return err
	}
	if err := s.deleteRefs(ctx, refs); err != nil {
		return err
	}
	return s.collect(ctx)
}

// PruneResult says what Prune removed.
type PruneResult struct {
	Removed                    int
	SizeBytesBefore, SizeBytes int64
}

// Prune deletes every snapshot not in keep (a nil keep keeps all) but
// those taken in the last hour, then, while the store is over capBytes (0:
// no cap), the oldest snapshots, and collects what no remaining snapshot
// references.
func (s *Store) Prune(ctx context.Context, keep map[ID]bool, capBytes int64) (PruneResult, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return PruneResult{}, err
	}
	defer unlock()
	var res PruneResult
	if res.SizeBytesBefore, err = s.size(ctx); err != nil {
		return res, err
	}
	refs, err := s.refs(ctx, "refs/agent/")
	if err != nil {
		return res, err
	}
	drop, rest := splitKept(refs, keep, time.Now().Unix())
	if err := s.deleteRefs(ctx, drop); err != nil {
		return res, err
	}
	res.Removed = len(drop)
	if err := s.collect(ctx); err != nil {
		return res, err
	}
	if res.SizeBytes, err = s.size(ctx); err != nil {
		return res, err
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].unixS < rest[j].unixS })
	for capBytes > 0 && res.SizeBytes > capBytes && len(rest) > 0 {
		n := oldestBatch(len(rest))
		if err := s.deleteRefs(ctx, rest[:n]); err != nil {
			return res, err
		}
		rest, res.Removed = rest[n:], res.Removed+n
		if err := s.collect(ctx); err != nil {
			return res, err
		}
		if res.SizeBytes, err = s.size(ctx); err != nil {
			return res, err
		}
	}
	return res, nil
}

// pruneGraceS protects fresh snapshots from the keep set: another process
// (`agent sessions rm`) may prune with the ids its database names while a
// running session has taken a snapshot it has not stored yet.
const pruneGraceS = 3600

// splitKept separates the refs to drop — not in keep, and older than the
// grace period at nowS — from the rest.
func splitKept(refs []snapRef, keep map[ID]bool, nowS int64) (drop, rest []snapRef) {
	for _, r := range refs {
		if keep != nil && !keep[r.id] && nowS-r.unixS > pruneGraceS {
			drop = append(drop, r)
		} else {
			rest = append(rest, r)
		}
	}
	return drop, rest
}

// oldestBatch is how many of n remaining snapshots one round over the cap
// drops: a quarter, so a store far over its cap needs few collections
// (each repacks the store) and one slightly over loses little.
func oldestBatch(n int) int {
	return max(1, n/4)
}

func (s *Store) deleteRefs(ctx context.Context, refs []snapRef) error {
	if len(refs) == 0 {
		return nil
	}
	var b strings.Builder
	for _, r := range refs {
		b.WriteString("delete " + r.ref + "\n")
	}
	if _, err := s.git.Output(ctx, []byte(b.String()), "update-ref", "--stdin"); err != nil {
		return fmt.Errorf("delete snapshots: %w", err)
	}
	return nil
}

// collect drops the objects no ref reaches. The store's index also
// references blobs (of the last snapshot), which keeps them: they are the
// next snapshot's anyway.
func (s *Store) collect(ctx context.Context) error {
	if _, err := s.git.Output(ctx, nil, "gc", "--prune=now", "--quiet"); err != nil {
		return fmt.Errorf("collect snapshots: %w", err)
	}
	return nil
}
