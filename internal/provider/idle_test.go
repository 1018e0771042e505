package provider

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/provider/providertest"
)

// keepAliveOnly is a stream that sends only SSE comments and blank lines,
// for much longer than the idle timeouts of the tests.
func keepAliveOnly(every time.Duration, n int) providertest.Step {
	var chunks []providertest.Chunk
	for range n {
		chunks = append(chunks, providertest.Comment("keep-alive"), providertest.Delay(every))
	}
	return providertest.CutShort(chunks...)
}

func TestIdleTimeout(t *testing.T) {
	const idle = 200 * time.Millisecond
	stall := make(chan struct{})
	defer close(stall)
	tests := []struct {
		name string
		step providertest.Step
	}{
		{"never answers", providertest.Hang()},
		{"headers then stall", providertest.Reply(providertest.Block(stall))},
		{"stall after data", providertest.Reply(providertest.TextChunk("partial"), providertest.Block(stall))},
		{"keep-alive comments only", keepAliveOnly(idle/4, 100)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.New(t, tt.step)
			p := NewOpenAI(Config{BaseURL: srv.URL, StreamIdleTimeout: idle})
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			start := time.Now()
			o := collect(t, ctx, p)
			elapsed := time.Since(start)
			var pe *Error
			if !errors.As(o.err, &pe) {
				t.Fatalf("got %v after %v, want an idle timeout", o.err, elapsed)
			}
			want := "no data for 0.2 s (stream_idle_timeout_s) from " + srv.URL
			if pe.Class != ClassRetryable || !strings.Contains(pe.Error(), want) || !errors.Is(pe, ErrIdleTimeout) {
				t.Errorf("error %q (class %v), want a retryable idle timeout saying %q", pe, pe.Class, want)
			}
			if elapsed > 10*idle {
				t.Errorf("the timeout came after %v, want about %v", elapsed, idle)
			}
		})
	}
}

// A slow stream whose data keeps coming is not cut, however long it lasts.
func TestIdleTimeoutResetByData(t *testing.T) {
	const idle = 300 * time.Millisecond
	var chunks []providertest.Chunk
	for _, w := range []string{"one ", "two ", "three ", "four ", "five"} {
		chunks = append(chunks, providertest.Delay(idle/3), providertest.TextChunk(w))
	}
	chunks = append(chunks, providertest.FinishChunk("stop"))
	srv := providertest.New(t, providertest.Reply(chunks...))
	p := NewOpenAI(Config{BaseURL: srv.URL, StreamIdleTimeout: idle})
	o := collect(t, t.Context(), p)
	if o.err != nil || o.text != "one two three four five" || o.finish != "stop" {
		t.Errorf("got %q %q %v, want the whole slow answer", o.text, o.finish, o.err)
	}
}
