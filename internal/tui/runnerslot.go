package tui

import (
	"sync"

	"github.com/ctxloop/agent/internal/loop"
)

// runnerSlot holds the runner the chat has open, for Close, which runs
// after the program has stopped. An open that starts after Close does
// nothing; Close waits for one that started before.
type runnerSlot struct {
	mu       sync.Mutex
	r        *loop.Runner
	closed   bool
	inflight sync.WaitGroup
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

// close marks the chat closed, waits for opens under way and returns the
// runner left open.
func (s *runnerSlot) close() *loop.Runner {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.inflight.Wait()
	return s.swap(nil)
}
