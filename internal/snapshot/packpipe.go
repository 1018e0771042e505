package snapshot

// packpipe.go: a first snapshot's pack written on its own goroutine (issue
// 26: outside git, the first snapshot at the cost of `tar c`, on both
// cores). Contract: a planned pack's entries (packplan.go) are queued, in
// the order their offsets were given, and a writer goroutine adds each to
// the pack's running SHA-1 (its trailer) and writes it, then releases its
// buffer; the hashers that read and encode the files go on meanwhile,
// instead of taking turns at the pack's SHA-1 and writes under its lock.
// The queue holds buffers of at most its budget, pipeBudget bytes, in all
// (one larger alone; a first snapshot's two packs, packpair.go, half each), counted by what each holds (its capacity: a pooled buffer that
// once took a large file stays large), not by the entry's length: memory
// stays bounded, a put waits while it is full. The first write
// error is kept and reported by every later send and by drain; drain
// waits until all that was queued is written (or released, after an
// error or an abort) and the goroutine has ended.

import (
	"errors"
	"sync"
)

// errPipeClosed: an entry sent after the pack was finished or aborted.
var errPipeClosed = errors.New("snapshot: pack already finished")

// pipeBudget is the most buffer bytes queued for the pack's writer.
const pipeBudget = 2 << 20

type packPipe struct {
	budget  int // pipeBudget, or a share of it (packpair.go)
	mu      sync.Mutex
	cond    sync.Cond
	q       []queuedEntry
	bytes   int
	closed  bool
	aborted bool
	err     error
	done    chan struct{}
}

type queuedEntry struct {
	b       []byte
	held    int // the bytes its buffer holds
	release func()
}

// startPipe starts p's writer goroutine.
func startPipe(p *packWriter) *packPipe {
	q := &packPipe{budget: pipeBudget, done: make(chan struct{})}
	q.cond.L = &q.mu
	go q.run(p)
	return q
}

// send queues b, from a buffer of held bytes, to be written after what
// was queued before; release is called once it is written (or dropped).
// It waits while the queue is full.
func (q *packPipe) send(b []byte, held int, release func()) error {
	held = max(held, len(b))
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.bytes > 0 && q.bytes+held > q.budget && q.err == nil && !q.aborted {
		q.cond.Wait()
	}
	if q.err != nil || q.closed {
		release()
		if q.err == nil {
			return errPipeClosed
		}
		return q.err
	}
	q.q = append(q.q, queuedEntry{b: b, held: held, release: release})
	q.bytes += held
	q.cond.Broadcast()
	return nil
}

// fits reports whether a send of held bytes would be queued now, without
// a wait (a hint: the queue moves).
func (q *packPipe) fits(held int) bool {
	if q == nil {
		return true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes == 0 || q.bytes+held <= q.budget
}

// failed is the first write error, if any.
func (q *packPipe) failed() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// run writes the queue in order until it is closed and empty.
func (q *packPipe) run(p *packWriter) {
	defer close(q.done)
	q.mu.Lock()
	for {
		for len(q.q) == 0 && !q.closed {
			q.cond.Wait()
		}
		if len(q.q) == 0 {
			q.mu.Unlock()
			return
		}
		e := q.q[0]
		q.q[0] = queuedEntry{}
		q.q = q.q[1:]
		skip := q.err != nil || q.aborted
		q.mu.Unlock()
		var err error
		if !skip {
			err = p.write(e.b)
		}
		e.release()
		q.mu.Lock()
		if err != nil && q.err == nil {
			q.err = err
		}
		q.bytes -= e.held
		q.cond.Broadcast()
	}
}

// drain closes the queue, waits until it is written and returns the
// first write error.
func (q *packPipe) drain() error {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
	<-q.done
	return q.failed()
}

// abort drops what is queued, unwritten, and waits for the goroutine.
func (q *packPipe) abort() {
	q.mu.Lock()
	q.aborted = true
	q.mu.Unlock()
	q.drain()
}
