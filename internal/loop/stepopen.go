package loop

// Opening a step's assistant message beside its request. The message row
// and its step-start part are written while the request goes out (the
// provider's Stream, on the loop's goroutine), not before it, so that the
// database's writes do not stand between Enter and the request on the
// wire. The history and the events get the message only once both are
// done, in the order they always had: the message, its step-start part,
// then what streams. A write that fails ends the step as before, the
// stream closed unread.

import (
	"context"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// stepOpening is an assistant message and its step-start part being
// written.
type stepOpening struct {
	m     message.Message
	start message.Part
	// err is the write failing: the message and its part are one
	// transaction (storage.Store.CreateMessage).
	err  error
	done chan struct{}
}

// openStep starts writing m and its step-start part. It returns at once;
// wait says when they are written.
func (sp *stepper) openStep(ctx context.Context, m message.Message) *stepOpening {
	o := &stepOpening{m: m, done: make(chan struct{})}
	// A cancel that comes while the request goes out ends the stream,
	// not these writes: the message is there to record the interruption.
	ctx = context.WithoutCancel(ctx)
	go func() {
		defer close(o.done)
		o.start = message.Part{Type: message.PartStepStart}
		if o.err = userCommitOf(ctx).waitBegun(); o.err != nil { // begun by send
			return // the user message was not stored: nor is its answer
		}
		o.err = sp.store.CreateMessage(ctx, &o.m, &o.start)
	}()
	return o
}

// wait waits for the writes and returns the message written, or the
// error that kept it from being written.
func (o *stepOpening) wait() (message.Message, error) {
	<-o.done
	return o.m, o.err
}

// send starts the provider's stream of req (the request on the wire).
func (sp *stepper) send(ctx context.Context, req provider.Request) (provider.Stream, error) {
	sp.firstRequest()
	c := userCommitOf(ctx)
	defer c.begin() // a provider that does not call Sent
	if c != nil {
		req.Sent = c.begin
	}
	return sp.opt.Provider.Stream(ctx, req)
}
