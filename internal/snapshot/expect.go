package snapshot

// expect.go: what a restore compares before it touches a file. The caller
// knows, file by file, the snapshot its agent last left each file in (a
// multi-turn rewind: a.txt as turn 1 left it, b.txt as turn 2 left it);
// a file that differs from that state was changed by someone else, even
// when the newest snapshot already holds the change. Expectations are
// checked under the store's lock, against the tree as the restore found
// it (its Before snapshot), so nothing changes between check and restore.

import (
	"context"
	"sort"
)

// Expectation says that Paths, in snapshot Against (the tree as the
// restore finds it when Against is ""), are as snapshot At has them: the
// state the caller's agent left them in.
type Expectation struct {
	At      ID
	Against ID
	Paths   []string
}

// checkExpectations returns the files that break one of exps, compared
// with the tree snapshotted as now; each path once, in path order.
func (s *Store) checkExpectations(ctx context.Context, exps []Expectation, now ID) ([]FileChange, error) {
	seen := map[string]bool{}
	var out []FileChange
	for _, e := range exps {
		if len(e.Paths) == 0 || e.At == "" {
			continue
		}
		against := e.Against
		if against == "" {
			against = now
		}
		if against == e.At {
			continue
		}
		paths, err := pathsOnly{s}.covered(ctx, e.Paths, e.At, against)
		if err != nil {
			return nil, err
		}
		if len(paths) == 0 {
			continue
		}
		files, err := s.changes(ctx, e.At, against, paths)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if !seen[f.Path] {
				seen[f.Path] = true
				out = append(out, f)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// covered are the paths both snapshots hold: a paths-only snapshot
// (budget.go) says nothing of a path it does not cover, so no comparison
// of it can show someone else's change.
func (ps pathsOnly) covered(ctx context.Context, paths []string, ids ...ID) ([]string, error) {
	for _, id := range ids {
		snap, err := ps.s.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if snap.Partial == nil {
			continue
		}
		var kept []string
		for _, p := range paths {
			if inScope(p, snap.Partial) {
				kept = append(kept, p)
			}
		}
		paths = kept
	}
	return paths, nil
}
