package snapshot

// progress.go: how far a slow snapshot has got.
//
// Contract. A caller that wants to show a snapshot's progress puts a
// callback in the context (WithProgress). A whole-tree snapshot (Take)
// that has many changed files to hash feeds them to git in chunks and
// calls it after each chunk with the files hashed so far and the files to
// hash in all: an honest count of the work that takes the time (the walk
// before it is a stat of each file and is not counted). The common fast
// case pays nothing: a snapshot with fewer files than one chunk, or one
// that is over within progressDelay, never calls it, and calls are at
// most one per progressEvery. The callback runs on the snapshot's
// goroutine and must not block.
//
// A caller that lets the user skip the snapshot passes a skip channel and
// closes it: the take stops at the next chunk boundary (never inside a git
// process, which would leave the store's index.lock behind) and fails
// with ErrSkipped, and what it wrote is discarded (failure.go) like any
// failed take: the store keeps only what its index and refs reach, and
// the next snapshot starts from there.

import (
	"context"
	"errors"
	"time"
)

// ErrSkipped is the error of a snapshot the user skipped.
var ErrSkipped = errors.New("checkpoint skipped")

// Progress is told done of total files hashed.
type Progress func(done, total int)

type progressKey struct{}

type progressValue struct {
	fn   Progress
	skip <-chan struct{}
}

// WithProgress returns ctx carrying fn for the snapshots taken under it;
// closing skip (nil: never) skips a snapshot that reports progress.
func WithProgress(ctx context.Context, fn Progress, skip <-chan struct{}) context.Context {
	return context.WithValue(ctx, progressKey{}, progressValue{fn, skip})
}

// progressChunk is the files one git update-index reads while a snapshot
// reports progress; progressDelay is how long a snapshot runs before its
// first report, progressEvery the least time between two.
var (
	progressChunk = 500
	progressDelay = 300 * time.Millisecond
	progressEvery = 200 * time.Millisecond
)

// progressOf is the reporter of ctx's callback for a take that started at
// start; nil without one, unless ctx can end (a time budget): the work
// in Go then stops when it does, as git's processes are killed.
func progressOf(ctx context.Context, start time.Time) *reporter {
	v, _ := ctx.Value(progressKey{}).(progressValue)
	if v.fn == nil && ctx.Done() == nil {
		return nil
	}
	return &reporter{fn: v.fn, skip: v.skip, done: ctx.Done(), start: start}
}

// reporter throttles a Progress.
type reporter struct {
	fn    Progress // nil: nothing reported, only skip and done watched
	skip  <-chan struct{}
	done  <-chan struct{} // the take's context ended
	start time.Time
	last  time.Time
}

// skipped reports whether the user skipped the snapshot, or its context
// ended.
func (r *reporter) skipped() bool {
	select {
	case <-r.skip:
		return true
	case <-r.done:
		return true
	default:
		return false
	}
}

// report passes done/total on when the throttle allows.
func (r *reporter) report(done, total int) {
	if r.fn == nil {
		return
	}
	now := time.Now()
	if now.Sub(r.start) < progressDelay || now.Sub(r.last) < progressEvery {
		return
	}
	r.last = now
	r.fn(done, total)
}

// updateIndexChunked is s.updateIndex in chunks of progressChunk paths with
// a report after each (one call without a reporter or with few paths).
func updateIndexChunked(ctx context.Context, s *Store, paths []string, skipped *[]Skip, rep *reporter) error {
	if rep == nil || len(paths) <= progressChunk {
		return s.updateIndex(ctx, paths, skipped)
	}
	for done := 0; done < len(paths); {
		if rep.skipped() {
			return ErrSkipped
		}
		n := min(progressChunk, len(paths)-done)
		if err := s.updateIndex(ctx, paths[done:done+n], skipped); err != nil {
			return err
		}
		done += n
		rep.report(done, len(paths))
	}
	return nil
}

// TuneProgress sets the chunk, first delay and least interval of progress
// reports, for tests of callers that cannot wait for a slow tree; restore
// puts the defaults back.
func TuneProgress(chunk int, delay, every time.Duration) (restore func()) {
	c, d, e := progressChunk, progressDelay, progressEvery
	progressChunk, progressDelay, progressEvery = chunk, delay, every
	return func() { progressChunk, progressDelay, progressEvery = c, d, e }
}
