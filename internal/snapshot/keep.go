package snapshot

// keep.go: sharing snapshots between sessions. A snapshot lives as long as
// a ref names it; a forked session names its original's snapshots in its
// patch parts, so it gets refs of its own and dropping the original's
// (DropSession) does not collect them.

import (
	"context"
	"fmt"
	"strings"
)

// Keep gives session a ref to each snapshot of ids that exists in the
// store (ids the store does not hold are ignored).
func (s *Store) Keep(ctx context.Context, session string, ids []ID) error {
	if err := checkSession(session); err != nil {
		return err
	}
	var valid []ID
	for _, id := range ids {
		if checkID(id) == nil {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		return nil
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	var in strings.Builder
	for _, id := range valid {
		in.WriteString(string(id) + "\n")
	}
	out, err := s.git.Output(ctx, []byte(in.String()), "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return fmt.Errorf("keep snapshots for %s: %w", session, err)
	}
	var b strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[1] == "commit" {
			b.WriteString("update " + s.ref(session, ID(f[0])) + " " + f[0] + "\n")
		}
	}
	if b.Len() == 0 {
		return nil
	}
	if _, err := s.git.Output(ctx, []byte(b.String()), "update-ref", "--stdin"); err != nil {
		return fmt.Errorf("keep snapshots for %s: %w", session, err)
	}
	return nil
}
