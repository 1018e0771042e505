package main

import (
	"context"
	"sync"
	"time"
)

// background runs the housekeeping a command starts beside its real work
// (expiring saved outputs, bounding the snapshot store) and ends it when
// the command ends: its context is cancelled, which kills any git it
// started, and the process waits a moment for it to stop. Without this a
// quick command (an unknown session, a bad flag) exits while a git child
// is still writing into the data directory.
var background = &chores{}

// chores is a set of background tasks that share one context.
type chores struct {
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// run starts fn in the background.
func (c *chores) run(fn func(ctx context.Context)) {
	c.mu.Lock()
	if c.ctx == nil {
		c.ctx, c.cancel = context.WithCancel(context.Background())
	}
	ctx := c.ctx
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		fn(ctx)
	}()
}

// stop cancels the tasks and waits for them, at most wait.
func (c *chores) stop(wait time.Duration) {
	c.mu.Lock()
	if c.cancel != nil {
		c.cancel()
	}
	c.mu.Unlock()
	done := make(chan struct{})
	go func() {
		c.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}
