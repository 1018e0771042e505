package acp

// pending.go: the work a session's turn started on the client that must
// end before its prompt answers. A tool cancelled with the turn may be
// left behind by the loop (tools.Registry.Run gives it a short grace),
// but what it asked of the editor (a terminal running a command) is still
// the agent's to stop and release: session/prompt answers "cancelled"
// only once that is done, as the protocol asks (the agent finishes its
// pending work before answering a cancelled prompt).

import (
	"context"
	"sync"
)

// pending counts the client work in flight; its zero value is ready.
type pending struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0; nil while n is 0
}

// start counts one piece of work in; done (idempotent) counts it out.
func (p *pending) start() (done func()) {
	p.mu.Lock()
	if p.n == 0 {
		p.idle = make(chan struct{})
	}
	p.n++
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.n--; p.n == 0 {
				close(p.idle)
				p.idle = nil
			}
		})
	}
}

// wait returns once no work is in flight, or false when ctx ends first.
func (p *pending) wait(ctx context.Context) bool {
	p.mu.Lock()
	idle := p.idle
	p.mu.Unlock()
	if idle == nil {
		return true
	}
	select {
	case <-idle:
		return true
	case <-ctx.Done():
		return false
	}
}
