package snapshot

// ignored.go: the files .gitignore hides, kept when small. A snapshot
// holds each ignored file up to Options.IgnoredMaxBytes (1 MiB by
// default) and adds at most IgnoredBudgetBytes of them in one snapshot;
// the rest are listed by name, size and mtime (Snapshot.Skipped), so a
// `git clean -fdx` brings back .env and says which big file it cannot.
// DefaultExcludes (.git, node_modules, …), the data directory and nested
// repositories are never kept. An ignored directory is walked by the
// store, at most ignoredWalkMax entries each snapshot; beyond that it is
// listed whole.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const (
	// DefaultIgnoredMaxBytes is the largest ignored file a snapshot keeps.
	DefaultIgnoredMaxBytes = 1 << 20
	// IgnoredBudgetBytes bounds the ignored files one snapshot adds.
	IgnoredBudgetBytes = 64 << 20
	// ignoredWalkMax bounds the entries of ignored directories walked in
	// one snapshot.
	ignoredWalkMax = 10000
)

// Reasons of a Skip for ignored files.
const (
	ReasonIgnoredTooLarge = "ignored, larger than the limit for ignored files"
	ReasonIgnoredBudget   = "ignored, over the snapshot's budget for ignored files"
	ReasonIgnoredTooMany  = "ignored directory with too many files to keep"
)

// neverKept reports whether p is one of the paths no snapshot keeps, even
// as an ignored file: DefaultExcludes and the store's own excludes.
func (s *Store) neverKept(p string) bool {
	parts := strings.Split(strings.TrimSuffix(p, "/"), "/")
	for _, pat := range s.excludes {
		pat = strings.TrimSuffix(pat, "/")
		if strings.HasPrefix(pat, "/") {
			rel := strings.TrimPrefix(pat, "/")
			if p == rel || strings.HasPrefix(p, rel+"/") {
				return true
			}
			continue
		}
		for _, part := range parts {
			if ok, _ := filepath.Match(pat, part); ok {
				return true
			}
		}
	}
	return false
}

// ignoredRead is ignoredFiles' answer.
type ignoredRead struct {
	keep  []string
	skips []Skip
	err   error
}

// ignoredFiles lists the ignored files not yet in the store's index: those
// to keep, and the skips of those it leaves out.
func (s *Store) ignoredFiles(ctx context.Context) (keep []string, skips []Skip, err error) {
	if s.ignoredMax < 0 {
		return nil, nil, nil
	}
	out, err := s.git.Output(ctx, nil, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	if err != nil {
		return nil, nil, fmt.Errorf("snapshot %s: ignored files: %w", s.workTree, err)
	}
	keep, skips = s.ignoredFrom(strings.Split(string(out), "\x00"))
	return keep, skips, nil
}

// ignoredFrom is ignoredFiles' answer from the listing of the untracked
// ignored paths (a directory ignored whole as "dir/").
func (s *Store) ignoredFrom(listed []string) (keep []string, skips []Skip) {
	type cand struct {
		path string
		fi   os.FileInfo
	}
	var cands []cand
	walked := 0
	for _, p := range listed {
		if p == "" || s.neverKept(p) {
			continue
		}
		abs := filepath.Join(s.workTree, filepath.FromSlash(strings.TrimSuffix(p, "/")))
		if !strings.HasSuffix(p, "/") {
			if fi, err := os.Lstat(abs); err == nil {
				cands = append(cands, cand{p, fi})
			}
			continue
		}
		dir := strings.TrimSuffix(p, "/")
		tooMany := errors.New("too many")
		var found []cand
		werr := filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			walked++
			if walked > ignoredWalkMax {
				return tooMany
			}
			rel, _ := filepath.Rel(s.workTree, path)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if path != abs {
					if s.neverKept(rel) {
						return fs.SkipDir
					}
					if _, err := os.Lstat(filepath.Join(path, ".git")); err == nil {
						skips = append(skips, s.nestedSkip(rel))
						return fs.SkipDir
					}
				}
				return nil
			}
			if fi, err := d.Info(); err == nil {
				found = append(found, cand{rel, fi})
			}
			return nil
		})
		if errors.Is(werr, tooMany) {
			skips = append(skips, Skip{Path: dir, Reason: ReasonIgnoredTooMany})
			continue
		}
		cands = append(cands, found...)
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].path < cands[j].path })
	var total int64
	for _, c := range cands {
		m := c.fi.Mode()
		if !m.IsRegular() && m&os.ModeSymlink == 0 {
			continue
		}
		sk := Skip{Path: c.path, Bytes: c.fi.Size(), MTime: c.fi.ModTime(), Limit: s.ignoredMax}
		switch {
		case m.IsRegular() && c.fi.Size() > s.ignoredMax:
			sk.Reason = ReasonIgnoredTooLarge
		case total+c.fi.Size() > IgnoredBudgetBytes:
			sk.Reason, sk.Limit = ReasonIgnoredBudget, IgnoredBudgetBytes
		default:
			total += c.fi.Size()
			keep = append(keep, c.path)
			continue
		}
		skips = append(skips, sk)
	}
	return keep, skips
}

// ignoredOf returns which of paths git ignores (files kept in the index
// once, now changed: the limit for ignored files applies to them). One
// `ls-files --cached --ignored` (check-ignore refuses literal pathspecs,
// which the store's git always uses).
func (s *Store) ignoredOf(ctx context.Context, paths []string) map[string]bool {
	if len(paths) == 0 || s.ignoredMax < 0 {
		return nil
	}
	out, _ := s.git.Output(ctx, nil, "ls-files", "-z", "--cached", "--ignored", "--exclude-standard")
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	m := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if want[p] {
			m[p] = true
		}
	}
	return m
}

// limitIgnored adds to a snapshot's update the ignored files to keep, and
// its skips the ones it leaves out; a kept ignored file that grew over the
// limit leaves the index (remove) and is listed.
//
// listed, when not nil, is ignoredFiles' answer computed while git walked
// the tree for the changed paths (take starts it first: the two walks
// overlap); nil to list them now. fresh: the store's index had no entry
// when the Go walk listed update, so none of it is a kept ignored file
// (and none is looked at: on a first snapshot, every file).
func (s *Store) limitIgnored(ctx context.Context, update, remove *[]string, skipped *[]Skip, listed <-chan ignoredRead, fresh bool) error {
	if s.ignoredMax < 0 {
		return nil
	}
	// Only a changed file over the limit for ignored files may be a kept
	// ignored file that grew: ask git about those alone.
	big := map[string]os.FileInfo{}
	var bigPaths []string
	for _, p := range *update {
		if fresh {
			break
		}
		fi, err := os.Lstat(filepath.Join(s.workTree, filepath.FromSlash(p)))
		if err == nil && fi.Mode().IsRegular() && fi.Size() > s.ignoredMax {
			big[p] = fi
			bigPaths = append(bigPaths, p)
		}
	}
	if ign := s.ignoredOf(ctx, bigPaths); len(ign) > 0 {
		kept := (*update)[:0]
		for _, p := range *update {
			if fi := big[p]; ign[p] {
				*skipped = append(*skipped, Skip{Path: p, Reason: ReasonIgnoredTooLarge, Bytes: fi.Size(), MTime: fi.ModTime(), Limit: s.ignoredMax})
				*remove = append(*remove, p)
				continue
			}
			kept = append(kept, p)
		}
		*update = kept
	}
	var r ignoredRead
	if listed != nil {
		r = <-listed
	} else {
		r.keep, r.skips, r.err = s.ignoredFiles(ctx)
	}
	keep, skips, err := r.keep, r.skips, r.err
	if err != nil {
		return err
	}
	*update = append(*update, keep...)
	*skipped = append(*skipped, skips...)
	return nil
}

// LostChanges compares the skips of two snapshots: the files neither
// holds that changed between them (Status: Deleted when gone from the
// work tree, Modified when their size or mtime changed, Added when new).
// exists says whether a path is in the work tree now.
func LostChanges(before, after []Skip, exists func(string) bool) []Skip {
	old := map[string]Skip{}
	for _, sk := range before {
		old[sk.Path] = sk
	}
	var out []Skip
	seen := map[string]bool{}
	for _, sk := range after {
		seen[sk.Path] = true
		prev, ok := old[sk.Path]
		switch {
		case !ok && (sk.Bytes > 0 || !sk.MTime.IsZero()):
			sk.Status = Added
		case ok && (sk.Bytes > 0 || !sk.MTime.IsZero()) && (prev.Bytes != sk.Bytes || !prev.MTime.Equal(sk.MTime)):
			sk.Status = Modified
		default:
			continue
		}
		out = append(out, sk)
	}
	for _, sk := range before {
		if !seen[sk.Path] && (sk.Bytes > 0 || !sk.MTime.IsZero()) && !exists(sk.Path) {
			sk.Status = Deleted
			out = append(out, sk)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// nestedWalkMax bounds the entries of a nested repository walked for its
// fingerprint.
const nestedWalkMax = 5000

// nestedSkip is the Skip of a nested repository, with a fingerprint of
// its files (their total size, and the newest mtime of a file or
// directory, .git left out) so that a change inside it is seen and said:
// "vendor/lib (nested repository, modified)". Past nestedWalkMax entries
// the fingerprint covers the first ones only.
func (s *Store) nestedSkip(rel string) Skip {
	sk := Skip{Path: rel, Reason: ReasonNested}
	root := filepath.Join(s.workTree, filepath.FromSlash(rel))
	n := 0
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > nestedWalkMax {
			return fs.SkipAll
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if fi.Mode().IsRegular() {
			sk.Bytes += fi.Size()
		}
		if fi.ModTime().After(sk.MTime) {
			sk.MTime = fi.ModTime()
		}
		return nil
	})
	return sk
}
