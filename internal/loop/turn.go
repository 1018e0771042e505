package loop

// turn.go: the turn control: whether a turn (or another busy period: a
// compaction, an undo, a !command, a rewind) runs, its cancel, the channel
// closed when it ends and how the last one ended.

import (
	"context"
	"sync"
)

// turnControl claims and releases the session for one busy period at a
// time. Its fields are guarded by the session state's lock (mu points at
// sessionState.mu): whether a turn runs and the history, queue and prompt
// it owns are read and changed together. Whoever holds busy owns
// sessionState's history and system.
//
// A message sent while busy is queued under that lock (claimOr, whileBusy)
// and the period ends under it (settle, release), so none can wait,
// stranded, for a turn that is not running.
type turnControl struct {
	mu     *sync.Mutex
	busy   bool
	cancel context.CancelFunc
	idle   chan struct{} // closed when the current run ends
	last   TurnResult
	d      turnDeps
}

// turnDeps is what the turn control drives: the run of the loop goroutine
// (run: turns until nothing is queued), the queue (waiting: a message to
// deliver now; inject: deliver it) and the status event.
type turnDeps struct {
	run     func(ctx context.Context) TurnResult
	waiting func(ctx context.Context) bool
	inject  func(ctx context.Context) (bool, error)
	status  func(busy bool)
}

func newTurnControl(mu *sync.Mutex, d turnDeps) *turnControl {
	t := &turnControl{mu: mu, idle: make(chan struct{}), d: d}
	close(t.idle)
	return t
}

// isBusy reports whether a busy period runs.
func (t *turnControl) isBusy() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.busy
}

// claim starts a busy period that keeps no TurnResult (release ends it);
// false when one runs.
func (t *turnControl) claim() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.busy {
		return false
	}
	t.busy = true
	return true
}

// claimPeriod starts a busy period that ends with a TurnResult (setIdle):
// Wait waits for it. It returns the last result, for a period that keeps
// it; ErrBusy when one runs.
func (t *turnControl) claimPeriod() (TurnResult, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.busy {
		return TurnResult{}, ErrBusy
	}
	t.busy = true
	t.idle = make(chan struct{})
	return t.last, nil
}

// claimOr claims a turn and reports true, unless check fails; when one
// runs it calls queue instead, with the lock held, and reports false.
// check too runs with the lock held.
func (t *turnControl) claimOr(check, queue func() error) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := check(); err != nil {
		return false, err
	}
	if t.busy {
		return false, queue()
	}
	t.busy = true
	return true, nil
}

// whileBusy calls fn with the lock held if a turn runs and reports
// whether it did.
func (t *turnControl) whileBusy(fn func() error) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.busy {
		return false, nil
	}
	return true, fn()
}

// locked calls fn with the lock held and whether a turn runs.
func (t *turnControl) locked(fn func(busy bool)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fn(t.busy)
}

// start runs the loop goroutine; the caller has claimed the turn.
func (t *turnControl) start() { t.startWith(nil) }

// startWith runs the loop goroutine with the user message's write c
// under way, which the run waits for before it writes (usercommit.go).
func (t *turnControl) startWith(c *userCommit) {
	ctx, cancel := context.WithCancel(withUserCommit(context.Background(), c))
	t.mu.Lock()
	t.cancel = cancel
	t.idle = make(chan struct{})
	t.mu.Unlock()
	t.d.status(true)
	go func() {
		res := t.d.run(ctx)
		for !t.settle(ctx, res) { // a message came as the run ended
			res = t.d.run(ctx)
		}
		cancel()
	}()
}

// settle ends a run (the loop goes idle) and reports true, unless a
// message to deliver was queued after the run's last look at the queue: it
// then reports false and the run goes on, still busy. The queue is read
// under the lock, and messages are queued under it only while busy, so none
// can slip in between this look and going idle.
func (t *turnControl) settle(ctx context.Context, res TurnResult) bool {
	t.mu.Lock()
	if resumable(res) && t.d.waiting(ctx) {
		t.mu.Unlock()
		return false
	}
	t.idleLocked(res)
	return true
}

// setIdle ends a busy period with res. A message sent meanwhile was
// queued; when the period was not a turn (a compaction, an undo of one, a
// summary edit) no turn would pick it up, so one starts now with it.
func (t *turnControl) setIdle(res TurnResult) {
	t.mu.Lock()
	if t.d.waiting(context.Background()) {
		idle := t.idle
		t.last = res
		t.mu.Unlock()
		closeIdle(idle) // this period is over: Wait returns res
		t.resumeQueued()
		return
	}
	t.idleLocked(res)
}

// release ends a busy period that kept no TurnResult (a rewind, a
// !command, a read of the restore cost) like setIdle: a message queued
// meanwhile starts its turn.
func (t *turnControl) release() {
	t.mu.Lock()
	if t.d.waiting(context.Background()) {
		t.mu.Unlock()
		t.resumeQueued()
		return
	}
	t.busy = false
	t.mu.Unlock()
}

// resumeQueued starts a turn with the queued messages; the period is still
// busy. If nothing could be delivered after all, it goes idle.
func (t *turnControl) resumeQueued() {
	injected, err := t.d.inject(context.Background())
	if err != nil || !injected {
		t.mu.Lock()
		t.idleLocked(TurnResult{FinishReason: FinishError, Err: err})
		return
	}
	t.start()
}

// idleLocked is setIdle with the lock held; it unlocks it.
func (t *turnControl) idleLocked(res TurnResult) {
	t.busy = false
	t.last = res
	t.cancel = nil
	idle := t.idle
	t.mu.Unlock()
	closeIdle(idle)
	t.d.status(false)
}

func closeIdle(idle chan struct{}) {
	select {
	case <-idle:
	default:
		close(idle)
	}
}

// wait blocks until the period ends and returns how the last turn ended.
func (t *turnControl) wait(ctx context.Context) TurnResult {
	idle := t.done()
	select {
	case <-idle:
	case <-ctx.Done():
		return TurnResult{FinishReason: FinishCancelled, Err: ctx.Err()}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

// done returns a channel closed when the current run ends.
func (t *turnControl) done() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.idle
}

// stop cancels the running turn, if any.
func (t *turnControl) stop() {
	t.mu.Lock()
	cancel := t.cancel
	t.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
