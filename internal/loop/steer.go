package loop

// Steer or queue (issue 17). A message sent while the loop is busy either
// steers the running turn — it is injected at the turn's next step,
// coalesced with the other steering messages — or is queued for after the
// turn, when it starts a turn of its own. Delivery is exactly-once and in
// the order typed: a delivery removes the queued rows and stores the user
// message in one transaction (storage.DeliverQueued); a cancel takes back
// what is still queued, and whichever commits first has the rows.
//
// What is delivered when (pickDelivery): between the steps of a turn, the
// steering messages; when a turn ends, the steering messages typed too late
// for it start the next turn, or, when there are none, the oldest message
// queued for after the turn starts it alone. The rest waits for the next
// turn's end, so queued messages run one turn each, in order.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// SendKind gives the session a user message, with images attached (each
// made by attachments.Store). When the loop is idle the message is
// persisted and a turn starts, whatever the kind; when it is busy the
// message is queued (queued is then true), images and all, to steer the
// running turn (message.KindSteer) or to start a turn after it
// (message.KindQueue). Images for a model without vision are refused
// (ErrNoVision), storing and sending nothing.
func (r *Runner) SendKind(ctx context.Context, text string, kind message.QueueKind, images ...*message.FileState) (queued bool, err error) {
	if strings.TrimSpace(text) == "" {
		return false, errors.New("send: empty message")
	}
	if !kind.Valid() {
		return false, fmt.Errorf("send: unknown kind %q", kind)
	}
	check := func() error {
		if err := checkImages(images, r.mp.model, r.mp.info.SendsImages()); err != nil {
			return fmt.Errorf("send: %w", err)
		}
		return nil
	}
	queue := func() error { // under the turn control's lock: settle sees it, or the loop is idle
		if _, err := r.store.EnqueueKind(ctx, r.state.id(), text, kind, images...); err != nil {
			return fmt.Errorf("queue message: %w", err)
		}
		return nil
	}
	claimed, err := r.turns.claimOr(check, queue)
	if err != nil {
		return false, err
	}
	if !claimed {
		r.ev.queue(ctx)
		return true, nil
	}
	c, err := r.addUserMessage(ctx, planNote(r.opt.Mode, text), false, images...)
	if err != nil {
		r.turns.setIdle(TurnResult{FinishReason: FinishError, Err: err})
		return false, err
	}
	// The turn starts while the message is written (usercommit.go); a
	// write that fails is this send's error, and the turn's (the turn's
	// alone when ctx ends before the request goes out).
	r.turns.startWith(c)
	return false, c.waitSent(ctx)
}

// Steer queues text to steer the running turn, only if one runs: it
// reports false, sending nothing, when the loop is idle (`agent run
// --stdin-steer` steers a live run and never starts a new one).
func (r *Runner) Steer(ctx context.Context, text string) (bool, error) {
	if strings.TrimSpace(text) == "" {
		return false, nil
	}
	queued, err := r.turns.whileBusy(func() error {
		_, err := r.store.EnqueueKind(ctx, r.state.id(), text, message.KindSteer)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("steer: %w", err)
	}
	if !queued {
		return false, nil
	}
	r.ev.queue(ctx)
	return true, nil
}

// resumable reports whether a run that ended so goes on with what is
// queued: not after an error, a cancel, a doom loop or a stop.
func resumable(res TurnResult) bool {
	switch res.FinishReason {
	case FinishCancelled, FinishDoomLoop, FinishStopped:
		return false
	}
	return res.Err == nil
}

// SetQueuedKind flips a queued message between steering the running turn
// and waiting for the turn to end.
func (r *Runner) SetQueuedKind(ctx context.Context, id string, kind message.QueueKind) error {
	if err := r.store.SetQueuedKind(ctx, id, kind); err != nil {
		return err
	}
	r.ev.queue(ctx)
	return nil
}

// pickDelivery chooses what of queue (in position order) to deliver now:
// every steering message; or, at the end of a turn with none, the oldest
// message queued for after the turn.
func pickDelivery(queue []message.QueuedMessage, endOfTurn bool) []message.QueuedMessage {
	var steer []message.QueuedMessage
	for _, q := range queue {
		if q.Steers() {
			steer = append(steer, q)
		}
	}
	if len(steer) > 0 || !endOfTurn {
		return steer
	}
	for _, q := range queue {
		if !q.Steers() {
			return []message.QueuedMessage{q}
		}
	}
	return nil
}

// inbox brings user messages into the session: it resolves a message's
// @mentions (mention.go) and delivers queued messages (inject), through a
// UserPromptSubmit hook first. It is given what it needs in an inboxDeps
// and holds no *Runner, and no state, so no lock: the rows of the queue
// are the store's, and inject is called by whoever holds the loop's busy
// flag.
type inbox struct {
	d inboxDeps
}

// queueStore is what an inbox reads and writes of the queue; a
// *storage.Store is one.
type queueStore interface {
	ListQueueLatest(ctx context.Context, sessionID string) ([]message.QueuedMessage, error)
	DeliverQueued(ctx context.Context, ids []string, m *message.Message, parts []*message.Part) error
	RemoveQueued(ctx context.Context, id string) error
}

// inboxDeps is what an inbox works with; every field is required.
type inboxDeps struct {
	store queueStore
	// session is the session's id, model the model it uses now.
	session func() string
	model   func() string
	emit    func(message.Event)
	// emitQueue announces the queue as it is now.
	emitQueue func(context.Context)
	hooks     *hookPoints
	// added does what follows a stored user message (events, history,
	// calculator; Runner.userMessageAdded).
	added func(ctx context.Context, m message.Message, parts []message.Part, synthetic bool)
	// The mentions are resolved by registry's read and ls tools in env,
	// under perms.
	env      *tools.Env
	perms    *tools.Permissions
	registry func() *tools.Registry
}

// deliveryAttempts bounds the retries of a delivery that raced a change
// of the queue (an edit, a flip, a removal).
const deliveryAttempts = 3

// inject delivers what pickDelivery chooses as one user message
// (Coalesce). It reports whether it delivered anything.
func (in *inbox) inject(ctx context.Context, endOfTurn bool) (bool, error) {
	session := in.d.session()
	for attempt := 1; ; attempt++ {
		queue, err := in.d.store.ListQueueLatest(ctx, session)
		if err != nil {
			return false, fmt.Errorf("take queue: %w", err)
		}
		picked := pickDelivery(queue, endOfTurn)
		if len(picked) == 0 {
			return false, nil
		}
		// Rows another process queued (`agent steer`) are announced here,
		// before their delivery: nothing here saw them queued.
		in.d.emit(message.Event{Type: message.EventQueueChanged, SessionID: session, Queue: queue})
		ids := make([]string, len(picked))
		texts := make([]string, len(picked))
		var images []*message.FileState
		for i, q := range picked {
			ids[i], texts[i] = q.ID, q.Text
			images = append(images, q.Images...)
		}
		extra, blocked := in.promptHooks(ctx, ids, Coalesce(texts))
		if blocked {
			return false, nil
		}
		m := message.Message{SessionID: session, Role: message.RoleUser, Model: in.d.model(), FinishedAt: time.Now()}
		parts := append(in.parts(ctx, Coalesce(texts)), imageParts(images)...) // @mentions resolved at send time
		err = in.d.store.DeliverQueued(ctx, ids, &m, parts)
		if errors.Is(err, storage.ErrQueueChanged) && attempt < deliveryAttempts {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("deliver queued messages: %w", err)
		}
		in.d.emit(message.Event{Type: message.EventQueueDelivered, SessionID: session,
			Delivery: &message.QueueDelivery{IDs: ids, MessageID: m.ID, Steered: !endOfTurn}})
		in.d.emitQueue(ctx)
		stored := make([]message.Part, len(parts))
		for i, p := range parts {
			stored[i] = *p
		}
		in.d.added(ctx, m, stored, false)
		return true, in.d.hooks.addPromptContext(ctx, extra)
	}
}

// promptHooks fires UserPromptSubmit for queued messages about to be
// delivered as text. When a hook blocks them they leave the queue, the
// user is told why, and blocked is true.
func (in *inbox) promptHooks(ctx context.Context, ids []string, text string) (extra string, blocked bool) {
	extra, err := in.d.hooks.prompt(ctx, text)
	if err == nil {
		return extra, false
	}
	for _, id := range ids {
		_ = in.d.store.RemoveQueued(ctx, id)
	}
	in.d.emitQueue(ctx)
	in.d.emit(message.Event{Type: message.EventError, SessionID: in.d.session(), Err: err.Error()})
	return "", true
}

// waiting reports whether the queue holds a message to deliver now that
// no turn runs.
func (in *inbox) waiting(ctx context.Context) bool {
	q, err := in.d.store.ListQueueLatest(ctx, in.d.session())
	return err == nil && len(pickDelivery(q, true)) > 0
}
