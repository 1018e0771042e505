package tui

// The loop calls its observer and its askers on its own goroutine, and
// must never wait for the UI to draw. The inbox is an unbounded, ordered
// queue between them: the loop pushes and returns at once; one drain
// command at a time takes everything pushed so far and hands it to Update
// as a single message, so events keep their order and a burst of deltas
// costs one frame.

import (
	"context"
	"errors"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// errClosed is returned to an asker when the UI is gone.
var errClosed = errors.New("the chat was closed")

type inbox struct {
	mu     sync.Mutex
	items  []any
	signal chan struct{}
	done   chan struct{}
	once   sync.Once
}

func newInbox() *inbox {
	return &inbox{signal: make(chan struct{}, 1), done: make(chan struct{})}
}

// push adds an item; it never blocks.
func (b *inbox) push(v any) {
	b.mu.Lock()
	select {
	case <-b.done:
		b.mu.Unlock()
		return
	default:
	}
	b.items = append(b.items, v)
	b.mu.Unlock()
	select {
	case b.signal <- struct{}{}:
	default:
	}
}

// close ends the drain and makes askers give up.
func (b *inbox) close() { b.once.Do(func() { close(b.done) }) }

// inboxMsg carries what was pushed since the last drain.
type inboxMsg []any

// wait is the drain command: it returns when something was pushed, or nil
// when the inbox is closed.
func (b *inbox) wait() tea.Cmd {
	return func() tea.Msg {
		select {
		case <-b.signal:
		case <-b.done:
			return nil
		}
		b.mu.Lock()
		items := b.items
		b.items = nil
		b.mu.Unlock()
		return inboxMsg(items)
	}
}

// loopEvent is an event of the runner opened as generation gen; events
// of a runner the chat has left are dropped.
type loopEvent struct {
	gen int
	ev  message.Event
}

// permissionAsk is a permission question waiting for the user.
type permissionAsk struct {
	gen   int
	req   tools.Request
	reply chan tools.Answer
	done  <-chan struct{}
}

// doomAsk is a doom-loop question waiting for the user.
type doomAsk struct {
	gen   int
	tool  string
	input string
	reply chan loop.DoomReply
	done  <-chan struct{}
}

// observer returns the runner's observer for generation gen. The loop
// may change what an event points to after the observer returns, so the
// observer keeps copies.
func (b *inbox) observer(gen int) func(message.Event) {
	return func(ev message.Event) { b.push(loopEvent{gen: gen, ev: copyEvent(ev)}) }
}

// copyEvent copies what an event points to.
func copyEvent(ev message.Event) message.Event {
	if ev.Session != nil {
		s := *ev.Session
		ev.Session = &s
	}
	if ev.Message != nil {
		m := *ev.Message
		ev.Message = &m
	}
	if ev.Part != nil {
		p := *ev.Part
		if p.Tool != nil {
			t := *p.Tool
			p.Tool = &t
		}
		if p.Step != nil {
			st := *p.Step
			p.Step = &st
		}
		if p.Compaction != nil {
			c := *p.Compaction
			p.Compaction = &c
		}
		ev.Part = &p
	}
	if ev.Queue != nil {
		ev.Queue = append([]message.QueuedMessage(nil), ev.Queue...)
	}
	if ev.Retry != nil {
		r := *ev.Retry
		ev.Retry = &r
	}
	if ev.Prune != nil {
		p := *ev.Prune
		ev.Prune = &p
	}
	if ev.Compaction != nil {
		c := *ev.Compaction
		ev.Compaction = &c
	}
	return ev
}

// permissionAsker asks the user through the chat (tools.Asker).
type permissionAsker struct {
	box *inbox
	gen int
}

func (a permissionAsker) Ask(ctx context.Context, req tools.Request) (tools.Reply, error) {
	ans, err := a.AskAnswer(ctx, req)
	return ans.Reply, err
}

// AskAnswer asks and returns the reply with the denial's reason and
// whether the user stopped the turn (tools.AnswerAsker).
func (a permissionAsker) AskAnswer(ctx context.Context, req tools.Request) (tools.Answer, error) {
	reply := make(chan tools.Answer, 1)
	a.box.push(permissionAsk{gen: a.gen, req: req, reply: reply, done: ctx.Done()})
	select {
	case r := <-reply:
		return r, nil
	case <-ctx.Done():
		return tools.Answer{Reply: tools.Deny}, ctx.Err()
	case <-a.box.done:
		return tools.Answer{Reply: tools.Deny}, errClosed
	}
}

// doomAsker asks the user about a doom loop through the chat
// (loop.DoomAsker).
type doomAsker struct {
	box *inbox
	gen int
}

func (a doomAsker) AskDoomLoop(ctx context.Context, tool, input string) (loop.DoomReply, error) {
	reply := make(chan loop.DoomReply, 1)
	a.box.push(doomAsk{gen: a.gen, tool: tool, input: input, reply: reply, done: ctx.Done()})
	select {
	case r := <-reply:
		return r, nil
	case <-ctx.Done():
		return loop.DoomStop, ctx.Err()
	case <-a.box.done:
		return loop.DoomStop, errClosed
	}
}
