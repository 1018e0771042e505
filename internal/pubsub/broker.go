// Package pubsub is an in-process publish/subscribe broker with an explicit
// choice, at each publish, between must-deliver and lossy delivery.
//
// Contract: every subscriber receives values in the order they were
// published. Publish never drops a value and never blocks the publisher:
// each subscriber has an unbounded queue drained by its own goroutine.
// PublishLossy skips a subscriber whose queue already holds LossyLimit
// values, so a slow reader of high-rate values (streamed text) cannot make
// memory grow without bound. A subscriber must read its channel until it is
// closed or cancel its context; values queued before Close are still
// delivered, then the channel is closed.
package pubsub

import (
	"context"
	"sync"
)

// LossyLimit is the number of queued values beyond which PublishLossy skips
// a subscriber.
const LossyLimit = 256

// Broker fans values out to subscribers. Create one with New.
type Broker[T any] struct {
	mu     sync.RWMutex
	subs   map[*subscriber[T]]struct{}
	closed bool
}

// New returns an open broker with no subscribers.
func New[T any]() *Broker[T] {
	return &Broker[T]{subs: make(map[*subscriber[T]]struct{})}
}

// subscriber is one reader: a queue and the goroutine that drains it into out.
type subscriber[T any] struct {
	ctx  context.Context
	out  chan T
	wake chan struct{} // capacity 1: "the queue changed"

	mu     sync.Mutex
	queue  []T
	closed bool // the broker was closed: drain the queue, then stop
}

// Subscribe returns a channel receiving every value published from now on.
// The channel is closed when ctx is done or, after the values already queued
// for it are delivered, when the broker is closed.
func (b *Broker[T]) Subscribe(ctx context.Context) <-chan T {
	s := &subscriber[T]{ctx: ctx, out: make(chan T), wake: make(chan struct{}, 1)}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		close(s.out)
		return s.out
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	go b.drain(s)
	return s.out
}

// Publish delivers v to every current subscriber. It never blocks and never
// drops v.
func (b *Broker[T]) Publish(v T) { b.publish(v, false) }

// PublishLossy delivers v to every current subscriber that is keeping up:
// one with LossyLimit values or more waiting does not receive it. It never
// blocks.
func (b *Broker[T]) PublishLossy(v T) { b.publish(v, true) }

func (b *Broker[T]) publish(v T, lossy bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return
	}
	for s := range b.subs {
		s.push(v, lossy)
	}
}

// Close stops accepting values. Each subscriber still receives what was
// queued for it, then its channel is closed. Close does not wait for that.
func (b *Broker[T]) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	for s := range b.subs {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.signal()
	}
}

func (s *subscriber[T]) push(v T, lossy bool) {
	s.mu.Lock()
	if lossy && len(s.queue) >= LossyLimit {
		s.mu.Unlock()
		return
	}
	s.queue = append(s.queue, v)
	s.mu.Unlock()
	s.signal()
}

func (s *subscriber[T]) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// drain is the subscriber's goroutine: it moves queued values to out, one at
// a time, until the context ends or the broker is closed and the queue is
// empty.
func (b *Broker[T]) drain(s *subscriber[T]) {
	defer func() {
		b.mu.Lock()
		delete(b.subs, s)
		b.mu.Unlock()
		close(s.out)
	}()
	var zero T
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			closed := s.closed
			s.queue = nil // let a drained backlog be collected
			s.mu.Unlock()
			if closed {
				return
			}
			select {
			case <-s.wake:
				continue
			case <-s.ctx.Done():
				return
			}
		}
		v := s.queue[0]
		s.queue[0] = zero
		s.queue = s.queue[1:]
		s.mu.Unlock()
		select {
		case s.out <- v:
		case <-s.ctx.Done():
			return
		}
	}
}
