package snapshot

// failure.go: a snapshot that fails leaves nothing behind. Git writes
// each object to a temporary file and renames it whole, and the index and
// refs through lock files, so a failure never leaves a broken object,
// index or ref; but the objects a failed snapshot did write (on a full
// disk, most of it) would stay, unreferenced, until the next collection —
// holding the space the user's database needs to go on. discardFailed
// removes them at once: `git prune --expire=now` keeps everything a ref or
// the store's index reaches (every snapshot, and what the next one starts
// from) and drops the rest, git's temporary files included. It runs under
// the store's lock, so no other snapshot is half-way through.

import "context"

// failHook, when set (tests), runs where a take starts writing objects;
// an error fails the take there, as a full disk would.
var failHook func(s *Store, paths []string) error

// discardFailed removes what a failed snapshot wrote (the lock is held).
func (s *Store) discardFailed(ctx context.Context) {
	s.git.Output(ctx, nil, "prune", "--expire=now")
	s.reuse.forget() // the index may not be what the last snapshot left
}
