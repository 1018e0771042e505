package tui

import (
	"slices"
	"sync"

	"github.com/ctxloop/agent/internal/loop"
)

// runnerSlot holds the runner the chat has open, and those it has left
// (/new) whose close has not ended yet, for Close, which runs after the
// program has stopped. An open that starts after Close does nothing;
// Close waits for one that started before. A runner left is no longer the
// open one: an open ahead (earlyopen.go) fills the slot beside it, and an
// open of the same session waits for its close (its lease).
type runnerSlot struct {
	mu       sync.Mutex
	r        *loop.Runner
	left     []*leftRunner // left by the chat, not yet closed
	closed   bool
	inflight sync.WaitGroup
}

// leftRunner is a runner the chat left; closed is closed once its Close
// returned.
type leftRunner struct {
	r       *loop.Runner
	id      string // its session
	closing bool
	closed  chan struct{}
}

// leave moves r, if it is the open runner, to the runners left.
func (s *runnerSlot) leave(r *loop.Runner) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.r == r {
		s.r = nil
		s.left = append(s.left, &leftRunner{r: r, id: r.Session().ID, closed: make(chan struct{})})
	}
}

// closeLeft closes the runner left r unless another close of it is
// under way (Close, an open of its session), and returns once it is
// closed.
func (s *runnerSlot) closeLeft(r *loop.Runner) {
	s.mu.Lock()
	var l *leftRunner
	for _, x := range s.left {
		if x.r == r {
			l = x
		}
	}
	if l == nil {
		s.mu.Unlock()
		return
	}
	if l.closing {
		s.mu.Unlock()
		<-l.closed
		return
	}
	l.closing = true
	s.mu.Unlock()
	_ = r.Close()
	s.mu.Lock()
	s.left = slices.DeleteFunc(s.left, func(x *leftRunner) bool { return x == l })
	s.mu.Unlock()
	close(l.closed)
}

// closeLeftOf closes the runners left that hold session id, before an
// open of it (their lease).
func (s *runnerSlot) closeLeftOf(id string) {
	s.mu.Lock()
	var rs []*loop.Runner
	for _, l := range s.left {
		if l.id == id {
			rs = append(rs, l.r)
		}
	}
	s.mu.Unlock()
	for _, r := range rs {
		s.closeLeft(r)
	}
}

// begin registers an open; false once the chat is closed.
func (s *runnerSlot) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.inflight.Add(1)
	return true
}

func (s *runnerSlot) end() { s.inflight.Done() }

// take removes r if it is the open runner, and reports whether it was.
func (s *runnerSlot) take(r *loop.Runner) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.r != r {
		return false
	}
	s.r = nil
	return true
}

// swap stores r as the open runner and returns the previous one.
func (s *runnerSlot) swap(r *loop.Runner) *loop.Runner {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.r
	s.r = r
	return old
}

// fill stores r as the open runner if there is none, and reports
// whether it did.
func (s *runnerSlot) fill(r *loop.Runner) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.r != nil && s.r != r {
		return false
	}
	s.r = r
	return true
}

// close marks the chat closed, waits for opens under way, closes the
// runners left and returns the open one.
func (s *runnerSlot) close() *loop.Runner {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.inflight.Wait()
	s.mu.Lock()
	left := make([]*loop.Runner, 0, len(s.left))
	for _, l := range s.left {
		left = append(left, l.r)
	}
	s.mu.Unlock()
	for _, r := range left {
		s.closeLeft(r)
	}
	return s.swap(nil)
}
