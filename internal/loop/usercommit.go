package loop

// The user message's write beside its request (issue 36 item 4). A user
// message that starts a turn is put in the history at once, with its ids
// and times given here, and the turn starts; its write to the database
// (the message, its parts, a new session's row and title: one
// transaction) runs meanwhile on a goroutine of its own, so that the
// commit does not stand between Enter and the request on the wire.
//
// The write starts once the request's body is on the wire
// (provider.Request.Sent), or as soon as anything waits for it to be
// done: on two cores, SQLite's work beside the request's would delay the
// request it is moved out of the way of. It starts at the latest
// commitLatest after Enter, so that a request that cannot go out (a
// connect that hangs) does not keep the message off the screen.
//
// The order in the database and of the events stays what it was: the
// user message's events are emitted when its write has committed, and
// whatever the turn writes waits for that commit first (awaitUserCommit:
// the step's assistant message, the status part, a compaction, a
// synthetic message, the logged events, the records after the turn). A
// write that fails is returned by SendKind as before (unless SendKind's
// ctx ended before the request went out: waitSent), and the turn stops
// at its first write with that error, its message taken out of the
// history. A process killed after the request went out and before the
// commit loses that message (its request may have reached the model; no
// answer to it is stored, since the answer waits for the commit).

import (
	"context"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// userCommit is a user message's write, held until begin.
type userCommit struct {
	id    string // the message's
	start chan struct{}
	once  sync.Once
	done  chan struct{}
	err   error
}

// commitLatest is the longest the write waits for its request's Sent: a
// request normally goes out within a few milliseconds of Enter, but a
// connect that hangs (an address that never answers: up to the dial's
// timeout) must not keep the message off the screen and out of the store.
const commitLatest = 30 * time.Millisecond

// startCommit runs write on a goroutine once begin is called, or
// commitLatest after it is made; wait says how it went.
func startCommit(id string, write func() error) *userCommit {
	c := &userCommit{id: id, start: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		latest := time.NewTimer(commitLatest)
		select {
		case <-c.start:
		case <-latest.C:
		}
		latest.Stop()
		c.err = write()
	}()
	return c
}

// begin lets the write start (more calls do nothing; a nil c has no
// write).
func (c *userCommit) begin() {
	if c != nil {
		c.once.Do(func() { close(c.start) })
	}
}

// wait starts the write if it waits, waits for it and returns its
// error; a nil c has nothing to wait for.
func (c *userCommit) wait() error {
	c.begin()
	return c.waitBegun()
}

// waitBegun waits for the write without starting it: whoever waits so
// relies on the request's Sent, or a later wait, to start it.
func (c *userCommit) waitBegun() error {
	if c == nil {
		return nil
	}
	<-c.done
	return c.err
}

// waitSent is waitBegun for the send that started the turn: it returns
// nil once ctx ends with the write not done (the request has not gone
// out), so that its caller can cancel the turn; the turn reports the
// write's error then.
func (c *userCommit) waitSent(ctx context.Context) error {
	if c == nil {
		return nil
	}
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		select {
		case <-c.done:
			return c.err
		default:
			return nil
		}
	}
}

type userCommitKey struct{}

// withUserCommit is ctx carrying c, the write the turn run in it waits
// for before its own writes.
func withUserCommit(ctx context.Context, c *userCommit) context.Context {
	if c == nil {
		return ctx
	}
	return context.WithValue(ctx, userCommitKey{}, c)
}

// userCommitOf is the user message's write ctx carries, or nil.
func userCommitOf(ctx context.Context) *userCommit {
	c, _ := ctx.Value(userCommitKey{}).(*userCommit)
	return c
}

// awaitUserCommit waits for the user message's write ctx carries, if
// any, and returns its error: the turn writes nothing before it.
func awaitUserCommit(ctx context.Context) error { return userCommitOf(ctx).wait() }

// committed waits for the write c, started without error.
func committed(c *userCommit, err error) error {
	if err != nil {
		return err
	}
	return c.wait()
}

// appendUserEntry puts a user message in the history and counts it.
func appendUserEntry(s *sessionState, calc *tokens.Calculator, m message.Message, parts []message.Part) {
	s.mu.Lock()
	s.history = append(s.history, message.Entry{Message: m, Parts: parts})
	s.mu.Unlock()
	calc.AddText(tokens.UserContent(parts))
	calc.AddTokens(tokens.TokensPerMessage + tokens.ImagesCost(parts))
}

// dropUserEntry takes the message id, whose write failed, out of the
// history.
func dropUserEntry(s *sessionState, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.history) - 1; i >= 0; i-- {
		if s.history[i].Message.ID == id {
			s.history = append(s.history[:i:i], s.history[i+1:]...)
			s.mu.edited(i)
			return
		}
	}
}

// emitUserMessage announces a stored user message and its parts, and
// returns the text of its first text part.
func emitUserMessage(ev emitter, m message.Message, parts []message.Part) string {
	ev.emit(message.Event{Type: message.EventMessageUpdated, SessionID: m.SessionID, Message: &m})
	text := ""
	for i := range parts {
		ev.emit(message.Event{Type: message.EventPartUpdated, SessionID: m.SessionID, Part: &parts[i]})
		if parts[i].Type == message.PartText && text == "" {
			text = parts[i].Text
		}
	}
	return text
}
