// Package provider turns an OpenAI-compatible chat-completions stream into a
// small typed event stream (text, reasoning, tool calls, usage, finish) and
// classifies what can go wrong (retryable, authentication, bad request, not
// found, context overflow, broken stream, canceled).
//
// It is written against the shapes real servers send, not the ones the
// OpenAI reference promises: usage on any chunk (or twice), reasoning as
// reasoning_content, reasoning, reasoning_details, thinking parts of an
// array content, or a <think> block opening the answer text, tool calls
// keyed by an index that may start at 1, ids sent empty on later deltas,
// error objects in the middle of a stream, and streams cut before [DONE].
// A server silent for the idle timeout fails the attempt (retryable). The rest of the program sees
// normalised usage: Output includes reasoning tokens and Input includes
// cached tokens, whatever the server reported.
//
// The request and message types are go-openai's; the SSE stream is read here,
// because go-openai's reader cannot tell a stream cut short from a clean end
// and drops a mid-stream error that follows an SSE comment line.
package provider

import (
	"context"
	"net/http"
	"time"

	"github.com/ctxloop/agent/internal/message"
	openai "github.com/sashabaranov/go-openai"
)

// Usage is the normalised token usage of one call: Input includes cached
// input tokens and Output includes reasoning tokens.
type Usage = message.Usage

// Request is one chat-completions call. The provider always streams and asks
// for usage in the stream.
type Request struct {
	Model    string
	Messages []openai.ChatCompletionMessage
	Tools    []openai.Tool
	// MaxTokens caps the output; 0 sends no cap. It is sent as
	// max_completion_tokens to OpenAI (which requires it for reasoning
	// models) and as max_tokens elsewhere.
	MaxTokens int
	// Temperature is not sent when nil; a pointer to 0 sends 0.
	Temperature *float32
	// Effort is the reasoning effort ("low", "high", …; "" sends none),
	// sent in the dialect of the server's family (effort.go). It is a
	// parameter, never message text: two requests whose Effort differs
	// differ there only, and the change is a boundary the user made.
	Effort string
	// CacheBreakpoints are the indexes of the messages marked as the end
	// of a cached prefix (cache_control, cache.go), for a model whose
	// provider caches only where told; empty for the others.
	CacheBreakpoints []int
	// Encoded, when it has one element per message, holds each message's
	// JSON as EncodeMessage writes it (nil: encode that one here), so that
	// a caller sending a long history again and again encodes each message
	// once. The body is the same bytes either way.
	Encoded [][]byte
	// Sent, when set, is called once the body's last byte has been
	// handed to the connection, or the request failed before that: what
	// the caller holds back so as not to compete with the request for
	// the CPU (the loop's user message write) starts then.
	Sent func() `json:"-"`
}

// EventType says what an Event carries.
type EventType int

// The event types, in the order a typical stream produces them.
const (
	// EventTextDelta carries a fragment of the answer in Text.
	EventTextDelta EventType = iota + 1
	// EventReasoningDelta carries a fragment of the model's reasoning in Text.
	EventReasoningDelta
	// EventToolCallStart is sent once per call, when its name is known:
	// ToolCall.Index, ID and Name. ID is the one the end will carry (the
	// provider's, or "call_<index>" if it sent none before the name).
	EventToolCallStart
	// EventToolCallDelta carries an argument fragment in ToolCall.ArgsDelta.
	EventToolCallDelta
	// EventToolCallEnd is sent for every call, in index order, when the
	// finish reason arrives (or the stream ends with calls open); ToolCall
	// has the final ID, Name and Arguments.
	EventToolCallEnd
	// EventUsage carries the normalised usage in Usage. It comes at most
	// once per stream, just before EventFinish; callers that merge several
	// should keep the last.
	EventUsage
	// EventFinish carries FinishReason. It is sent exactly once, last, after
	// the whole stream has been read.
	EventFinish
)

// String names the event type for logs and test failures.
func (t EventType) String() string {
	switch t {
	case EventTextDelta:
		return "text_delta"
	case EventReasoningDelta:
		return "reasoning_delta"
	case EventToolCallStart:
		return "tool_call_start"
	case EventToolCallDelta:
		return "tool_call_delta"
	case EventToolCallEnd:
		return "tool_call_end"
	case EventUsage:
		return "usage"
	case EventFinish:
		return "finish"
	}
	return "unknown"
}

// ToolCall is the tool-call part of an event. Index is the provider's index
// of the call in the step (it may start at 1).
type ToolCall struct {
	Index     int
	ID        string
	Name      string
	ArgsDelta string
	Arguments string
	// Echo, on EventToolCallEnd, is the call's vendor fields to send back
	// with it (EchoTable: Gemini's extra_content) as a JSON object; ""
	// when it had none.
	Echo string
}

// Event is one item of a stream; which fields are set depends on Type.
type Event struct {
	Type         EventType
	Text         string
	ToolCall     *ToolCall
	Usage        *Usage
	FinishReason string
	// Echo, on EventFinish, is the message's vendor fields to send back
	// with it (EchoTable: reasoning_details, extra_content) as a JSON
	// object; "" when it had none.
	Echo string
}

// Stream is one streaming answer.
type Stream interface {
	// Recv returns the next event, and io.EOF after the EventFinish. Any
	// other error is an *Error, and Recv keeps returning it.
	Recv() (Event, error)
	// Close releases the connection. It may be called at any time, more
	// than once, and from another goroutine than Recv.
	Close() error
}

// Provider starts streaming chat completions.
type Provider interface {
	// Stream sends the request and returns the answer's stream. Errors
	// before the stream starts (HTTP errors, unreachable server) are
	// returned here as *Error.
	Stream(ctx context.Context, req Request) (Stream, error)
}

// Config says where and how to reach an OpenAI-compatible server.
type Config struct {
	// BaseURL is the API root, e.g. https://api.openai.com/v1 (the default
	// when empty) or http://127.0.0.1:8080/v1.
	BaseURL string
	// APIKey is sent as a bearer token when not empty. It never appears in
	// an error.
	APIKey string
	// HTTPClient is optional; streams can be long, so it should have no
	// overall Timeout (cancel the context instead).
	HTTPClient *http.Client
	// ExtraHeaders are set on every request (after the defaults, so they
	// may override them).
	ExtraHeaders map[string]string
	// StreamIdleTimeout is how long the server may send no data: before
	// the response headers, before the first data payload, and between
	// two payloads. Only data counts: SSE comments (": keep-alive") and
	// blank lines do not reset it, so a server that only keeps the
	// connection alive times out too. The failure is retryable and wraps
	// ErrIdleTimeout. 0 means DefaultStreamIdleTimeout; a negative value
	// disables the timeout.
	StreamIdleTimeout time.Duration
}
