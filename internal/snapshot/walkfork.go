package snapshot

// walkfork.go: a first walk's subdirectories walked side by side (issue
// 26: outside git the first snapshot at the cost of `tar c`, on both
// cores; the walk was a serial ≈ 17 ms of a 13,000-file tree's first
// snapshot). Contract: with no index to follow (a first snapshot outside
// git: nothing but listings and ignore rules), a walker hands a
// subdirectory to a walker of its own on another goroutine when one of
// walkForks' slots is free (else walks it itself), and join splices each
// child's answers (changed, ignored) in at the place the directory had in
// its parent's: the result is the serial walk's, in the same order
// (walkfork_test.go). With an index the walk stays serial (it reads the
// index in step with the tree). A child shares the directory cache
// (dircache.go: its map under its own lock) and the ignore stack (not
// changed once pushed); it ends, joined, before its slot is freed.

import (
	"runtime"
	"sync/atomic"

	"github.com/ctxloop/agent/internal/tools/gitignore"
)

// walkParallel: a walk with no index forks (tests turn it off to compare).
var walkParallel = true

// walkForks counts the subdirectories walked on a goroutine of their own
// (tests).
var walkForks atomic.Int64

// walkPar is a walk's fork slots: how many more goroutines may walk.
type walkPar struct{ slots chan struct{} }

// newWalkPar gives GOMAXPROCS-1 slots; nil (serial) when there is one
// processor or the walk is not to fork.
func newWalkPar() *walkPar {
	n := runtime.GOMAXPROCS(0) - 1
	if !walkParallel || n < 1 {
		return nil
	}
	return &walkPar{slots: make(chan struct{}, n)}
}

// walkSplice is a subdirectory walked by child, whose answers go at
// changedAt and ignoredAt of the parent's.
type walkSplice struct {
	changedAt, ignoredAt int
	child                *walker
	done                 chan struct{}
}

// fork walks the directory rel, open as d, on a goroutine of its own when
// a slot is free; false: the caller walks it.
func (w *walker) fork(rel string, d *dirFD, stack *gitignore.Stack) bool {
	if w.par == nil || w.idx != nil {
		return false
	}
	select {
	case w.par.slots <- struct{}{}:
	default:
		return false
	}
	walkForks.Add(1)
	child := &walker{work: w.work, dc: w.dc, par: w.par, watch: w.watch}
	s := walkSplice{changedAt: len(w.res.changed), ignoredAt: len(w.res.ignored), child: child, done: make(chan struct{})}
	w.splices = append(w.splices, s)
	go func() {
		defer close(s.done)
		child.dir(rel, d, stack, false)
		child.join()
		<-w.par.slots
	}()
	return true
}

// join waits for the walker's children and splices their answers in.
func (w *walker) join() {
	if len(w.splices) == 0 {
		return
	}
	var changed, ignored []string
	c, i := 0, 0
	for _, s := range w.splices {
		<-s.done
		changed = append(append(changed, w.res.changed[c:s.changedAt]...), s.child.res.changed...)
		ignored = append(append(ignored, w.res.ignored[i:s.ignoredAt]...), s.child.res.ignored...)
		c, i = s.changedAt, s.ignoredAt
	}
	w.res.changed = append(changed, w.res.changed[c:]...)
	w.res.ignored = append(ignored, w.res.ignored[i:]...)
	w.splices = nil
}
