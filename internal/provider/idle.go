package provider

// The idle watchdog. Each request gets a context of its own, cancelled
// when the server sends no data for the idle timeout: from the request
// until the first payload, then while Recv waits for the next one. The
// clock runs only while the provider waits for the server (not while the
// caller handles events) and is reset only by data: an SSE payload, or any
// byte of a non-streamed JSON answer. Comments and blank lines, which some
// servers send as keep-alives, do not reset it: a server that keeps the
// connection alive but never answers is as stuck as a silent one.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"
)

// DefaultStreamIdleTimeout is the idle timeout when Config leaves it 0.
const DefaultStreamIdleTimeout = 120 * time.Second

// ErrIdleTimeout is wrapped by the *Error of a server that sent no data
// for the idle timeout.
var ErrIdleTimeout = errors.New("stream idle timeout")

// idleWatch cancels a request's context when its timer fires. A zero or
// negative timeout never fires.
type idleWatch struct {
	timeout time.Duration
	timer   *time.Timer
	fired   atomic.Bool
	cancel  context.CancelFunc
}

// watchIdle returns ctx's child for one request and its watch, armed.
func watchIdle(ctx context.Context, timeout time.Duration) (context.Context, *idleWatch) {
	ctx, cancel := context.WithCancel(ctx)
	w := &idleWatch{timeout: timeout, cancel: cancel}
	if timeout > 0 {
		w.timer = time.AfterFunc(timeout, func() {
			w.fired.Store(true)
			cancel()
		})
	}
	return ctx, w
}

// arm restarts the clock: the server has timeout from now to send data.
func (w *idleWatch) arm() {
	if w.timer != nil && !w.fired.Load() {
		w.timer.Reset(w.timeout)
	}
}

// disarm stops the clock while nothing is waited for.
func (w *idleWatch) disarm() {
	if w.timer != nil {
		w.timer.Stop()
	}
}

// timedOut reports whether the watch cancelled the request.
func (w *idleWatch) timedOut() bool { return w.fired.Load() }

// release stops the clock and cancels the request's context.
func (w *idleWatch) release() {
	w.disarm()
	w.cancel()
}

// idleError is the error of a request the watch cancelled.
func idleError(baseURL string, timeout time.Duration) *Error {
	return &Error{
		Class: ClassRetryable,
		Message: fmt.Sprintf("no data for %s s (stream_idle_timeout_s) from %s",
			strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64), displayURL(baseURL)),
		Err: ErrIdleTimeout,
	}
}

// activityReader re-arms the watch on every byte read: for a
// non-streamed answer, any byte is data.
type activityReader struct {
	r     io.Reader
	watch *idleWatch
}

func (a activityReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if n > 0 {
		a.watch.arm()
	}
	return n, err
}
