package snapshot

// gone.go: content a snapshot borrowed from the user's repository (seed.go)
// that the user's git gc has since removed.
//
// Contract. A diff never fails for it: the files still come, those whose
// old or new content is gone are marked Pruned, the diff text shows the
// others and says ContentPruned for these. A restore checks, before it
// touches anything, that every object it would write exists: when one does
// not, it refuses with a *PrunedError naming the files it cannot bring
// back, and the tree stays as it was (all or nothing); forced, it restores
// the rest and names those files (ReasonGone).

import (
	"context"
	"fmt"
	"strings"
)

// pruned is the store's view of borrowed objects that are gone (a type
// of its own, so that Store's method set stays as it is).
type pruned struct{ s *Store }

// ContentPruned is what a diff says of a file whose content is gone.
const ContentPruned = "content no longer available (the repository's object was pruned)"

// PrunedError is a restore's refusal: the content of Paths, borrowed from
// the user's repository, is gone from it; nothing was changed.
type PrunedError struct {
	Paths []string
}

func (e *PrunedError) Error() string {
	names := e.Paths
	more := ""
	if len(names) > 5 {
		names, more = names[:5], fmt.Sprintf(" and %d more", len(e.Paths)-5)
	}
	return fmt.Sprintf("snapshot: cannot bring back %s%s: %s; nothing was changed (force restores the other files)",
		strings.Join(names, ", "), more, ContentPruned)
}

// missingObjects returns the objects of oids (zero ids and duplicates
// ignored) that neither the store nor the repository it borrows from
// holds.
func (pr pruned) missingObjects(ctx context.Context, oids []string) (map[string]bool, error) {
	s := pr.s
	seen := map[string]bool{}
	var in strings.Builder
	for _, o := range oids {
		if o == "" || strings.Trim(o, "0") == "" || seen[o] {
			continue
		}
		seen[o] = true
		in.WriteString(o + "\n")
	}
	if in.Len() == 0 {
		return nil, nil
	}
	out, err := s.git.Output(ctx, []byte(in.String()), "cat-file", "--batch-check")
	if err != nil {
		return nil, fmt.Errorf("check objects: %w", err)
	}
	var missing map[string]bool
	for _, line := range strings.Split(string(out), "\n") {
		if oid, ok := strings.CutSuffix(line, " missing"); ok {
			if missing == nil {
				missing = map[string]bool{}
			}
			missing[oid] = true
		}
	}
	return missing, nil
}

// blobsOf are the objects of files' contents (a nested repository's
// commit is not one).
func blobsOf(f FileChange, old bool) string {
	mode, oid := f.NewMode, f.NewBlob
	if old {
		mode, oid = f.OldMode, f.OldBlob
	}
	if mode == gitlinkMode || mode == zeroMode {
		return ""
	}
	return oid
}

// gitlinkMode is a nested repository's entry.
const gitlinkMode = "160000"

// mark marks the files whose old or new content is gone, and
// reports whether any is.
func (pr pruned) mark(ctx context.Context, files []FileChange) (bool, error) {
	var oids []string
	for _, f := range files {
		oids = append(oids, blobsOf(f, true), blobsOf(f, false))
	}
	missing, err := pr.missingObjects(ctx, oids)
	if err != nil || len(missing) == 0 {
		return false, err
	}
	for i, f := range files {
		files[i].Pruned = missing[blobsOf(f, true)] || missing[blobsOf(f, false)]
	}
	return true, nil
}

// prunedText is the diff text of the files whose content is gone.
func prunedText(files []FileChange) string {
	var b strings.Builder
	for _, f := range files {
		if f.Pruned {
			fmt.Fprintf(&b, "diff --git a/%s b/%s\n%s\n", f.Path, f.Path, ContentPruned)
		}
	}
	return b.String()
}

// check splits a restore's ops into those it can apply and the
// paths whose content to write is gone.
func (pr pruned) check(ctx context.Context, ops []FileChange) (ok []FileChange, gone []string, err error) {
	var oids []string
	for _, op := range ops {
		if !op.ModeOnly {
			oids = append(oids, blobsOf(op, false))
		}
	}
	missing, err := pr.missingObjects(ctx, oids)
	if err != nil || len(missing) == 0 {
		return ops, nil, err
	}
	for _, op := range ops {
		if !op.ModeOnly && missing[blobsOf(op, false)] {
			gone = append(gone, op.Path)
		} else {
			ok = append(ok, op)
		}
	}
	return ok, gone, nil
}

// diff completes p, whose diff text failed on a borrowed object
// that is gone: its files are marked, the text shows the others and names
// these.
func (pr pruned) diff(ctx context.Context, p *Patch) (*Patch, error) {
	if _, err := pr.mark(ctx, p.Files); err != nil {
		return nil, err
	}
	var readable []string
	for _, f := range p.Files {
		if !f.Pruned {
			readable = append(readable, f.Path)
		}
	}
	if len(readable) > 0 {
		text, truncated, err := patchText(ctx, pr.s.git, p.From, p.To, readable)
		if err != nil {
			return nil, err
		}
		p.Text, p.Truncated = text, truncated
	}
	p.Text += prunedText(p.Files)
	return p, nil
}
