package loop

// queue.go: the queue's API: messages typed while a turn runs wait in the
// store's queue (steer.go delivers them); the chat edits, moves and pulls
// them back.

import (
	"context"

	"github.com/ctxloop/agent/internal/message"
)

// Queue returns the queued messages.
func (r *Runner) Queue(ctx context.Context) ([]message.QueuedMessage, error) {
	return r.store.ListQueue(ctx, r.state.sess.ID)
}

// UpdateQueued edits a queued message.
func (r *Runner) UpdateQueued(ctx context.Context, id, text string) error {
	if err := r.store.UpdateQueued(ctx, id, text); err != nil {
		return err
	}
	r.ev.queue(ctx)
	return nil
}

// RemoveQueued deletes a queued message.
func (r *Runner) RemoveQueued(ctx context.Context, id string) error {
	if err := r.store.RemoveQueued(ctx, id); err != nil {
		return err
	}
	r.ev.queue(ctx)
	return nil
}

// MoveQueued moves a queued message to another position.
func (r *Runner) MoveQueued(ctx context.Context, id string, position int) error {
	if err := r.store.MoveQueued(ctx, id, position); err != nil {
		return err
	}
	r.ev.queue(ctx)
	return nil
}

// PullBack removes the newest queued message and returns it (its text and
// images), for the editor (Up on an empty editor). ok is false when the
// queue is empty.
func (r *Runner) PullBack(ctx context.Context) (last message.QueuedMessage, ok bool, err error) {
	q, err := r.store.ListQueue(ctx, r.state.sess.ID)
	if err != nil || len(q) == 0 {
		return last, false, err
	}
	last = q[len(q)-1]
	if err := r.store.RemoveQueued(ctx, last.ID); err != nil {
		return message.QueuedMessage{}, false, err
	}
	r.ev.queue(ctx)
	return last, true, nil
}
