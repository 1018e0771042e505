package provider

// Error classification. Every error the package returns is an *Error whose
// Class tells the caller what to do: retry (honouring RetryAfter), compact
// (context overflow), or stop and tell the user what to fix. Classification
// is by HTTP status first, then by the provider's code and message, because
// servers disagree on both (a context-length error is a 400 with code
// context_length_exceeded at OpenAI, a message about "maximum context length"
// at vLLM, and a 400 of type exceed_context_size_error at llama.cpp).

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Class is what kind of failure an Error is.
type Class int

// The error classes.
const (
	// ClassOther is anything not covered below; not retried.
	ClassOther Class = iota
	// ClassRetryable is a rate limit, an overloaded or failing server, a
	// timeout or a network error: retry with backoff, honouring RetryAfter.
	ClassRetryable
	// ClassAuth is a missing, wrong or unauthorised API key (401, 403).
	ClassAuth
	// ClassBadRequest is a request the server refuses as malformed (400,
	// 422, ...); retrying the same request will not help.
	ClassBadRequest
	// ClassNotFound is an unknown model or endpoint (404).
	ClassNotFound
	// ClassContextOverflow is a request longer than the model's context
	// window: compact, then retry once.
	ClassContextOverflow
	// ClassBrokenStream is a stream that ended before a finish reason or
	// failed mid-way; retryable.
	ClassBrokenStream
	// ClassCanceled is a cancelled context or a closed stream.
	ClassCanceled
	// ClassToolsUnsupported is a request refused (400, 422) because the
	// model or its server does not take tools: send it without them.
	ClassToolsUnsupported
)

// String names the class for logs and JSON output.
func (c Class) String() string {
	switch c {
	case ClassRetryable:
		return "retryable"
	case ClassAuth:
		return "auth"
	case ClassBadRequest:
		return "bad_request"
	case ClassNotFound:
		return "not_found"
	case ClassContextOverflow:
		return "context_overflow"
	case ClassBrokenStream:
		return "broken_stream"
	case ClassCanceled:
		return "canceled"
	case ClassToolsUnsupported:
		return "tools_unsupported"
	}
	return "other"
}

// Error is a classified provider failure.
type Error struct {
	Class Class
	// StatusCode is the HTTP status, 0 when the failure was not an HTTP
	// error response (network, mid-stream error, cancel).
	StatusCode int
	// Message is the provider's message, cleaned: one line, bounded, the API
	// key removed.
	Message string
	// RetryAfter is what the server asked for (Retry-After in seconds or as
	// an HTTP date, or retry-after-ms); 0 when it did not say.
	RetryAfter time.Duration
	// Err is the underlying cause, if any.
	Err error
	// MidAnswer is set for an error the server sent inside a stream it had
	// accepted, after part of the answer: the request was not rejected.
	MidAnswer bool
	// Usage is what a stream that failed part-way reported (OpenRouter's
	// mid-stream error chunk carries it): tokens billed though the
	// answer failed. Nil when the server sent none.
	Usage *Usage
}

// Error says what failed and, where the user can fix it, how.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("chat completion: ")
	b.WriteString(e.what())
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.StatusCode)
	}
	hint := e.hint()
	if e.Message != "" {
		b.WriteString(": ")
		if hint != "" && e.RetryAfter == 0 {
			b.WriteString(strings.TrimSuffix(e.Message, "."))
		} else {
			b.WriteString(e.Message)
		}
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	if hint != "" {
		b.WriteString("; ")
		b.WriteString(hint)
	}
	return b.String()
}

func (e *Error) what() string {
	if e.MidAnswer && (e.Class == ClassBadRequest || e.Class == ClassOther) {
		return "stopped mid-answer"
	}
	switch e.Class {
	case ClassRetryable:
		if e.StatusCode == http.StatusTooManyRequests {
			return "rate limited"
		}
		if errors.Is(e.Err, ErrIdleTimeout) {
			return "timed out"
		}
		return "temporary failure"
	case ClassAuth:
		return "authentication failed"
	case ClassBadRequest:
		return "request rejected"
	case ClassNotFound:
		return "not found"
	case ClassContextOverflow:
		return "context length exceeded"
	case ClassBrokenStream:
		return "stream broken"
	case ClassCanceled:
		return "canceled"
	case ClassToolsUnsupported:
		return "tools not supported"
	}
	return "failed"
}

func (e *Error) hint() string {
	switch e.Class {
	case ClassAuth:
		return "check OPENAI_API_KEY (or the key configured for this base URL)"
	case ClassNotFound:
		return "check --model and --base-url"
	case ClassContextOverflow:
		return "the conversation is too long for this model's context window; compact it"
	}
	return ""
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed later: retryable
// errors and broken streams.
func (e *Error) Retryable() bool {
	return e.Class == ClassRetryable || e.Class == ClassBrokenStream
}

// IsContextOverflow reports whether err is (or wraps) a context-length
// error, after which the caller should compact and retry.
func IsContextOverflow(err error) bool {
	var pe *Error
	return errors.As(err, &pe) && pe.Class == ClassContextOverflow
}

// Classify turns any error into an *Error: an *Error in the chain is
// returned as is; context.Canceled is ClassCanceled; deadlines, network
// errors, resets and timeouts are retryable; an EOF is a broken stream;
// certificate errors and anything else are ClassOther. It returns nil for nil.
func Classify(err error) *Error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	e := &Error{Class: ClassOther, Message: cleanMessage(err.Error()), Err: err}
	switch {
	case errors.Is(err, context.Canceled):
		e.Class, e.Message = ClassCanceled, ""
	case errors.Is(err, context.DeadlineExceeded):
		e.Class, e.Message = ClassRetryable, "timed out"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		e.Class, e.Message = ClassBrokenStream, "connection closed before the answer was complete"
	case isCertificateError(err):
		e.Class = ClassOther
	case isNetworkError(err):
		e.Class = ClassRetryable
		e.Message = cleanMessage(networkCause(err))
	}
	return e
}

func isCertificateError(err error) bool {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
	)
	return errors.As(err, &unknown) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || errors.As(err, &verify)
}

func isNetworkError(err error) bool {
	var (
		netErr net.Error
		opErr  *net.OpError
		dnsErr *net.DNSError
	)
	if errors.As(err, &netErr) || errors.As(err, &opErr) || errors.As(err, &dnsErr) {
		return true
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"connection reset", "broken pipe", "http2:", "tls handshake timeout", "server closed idle connection"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// networkCause is the innermost useful text of a transport error, without
// the method and URL net/http puts in front ("connect: connection refused").
func networkCause(err error) string {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "lookup " + dnsErr.Name + ": " + dnsErr.Err
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		return opErr.Err.Error()
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return "timed out"
	}
	return err.Error()
}

// classifyAPI decides the class of an error reported by the server, from
// the HTTP status (0 for an error inside a 200 stream) and the provider's
// code, type and message.
func classifyAPI(status int, code, typ, msg string) Class {
	text := strings.ToLower(code + " " + typ + " " + msg)
	if status == 0 {
		// Mid-stream errors often carry an HTTP-like numeric code.
		if n, err := strconv.Atoi(strings.TrimSpace(code)); err == nil && n >= 400 && n < 600 {
			status = n
		}
	}
	if mentionsContextOverflow(text) {
		switch status {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusTooManyRequests:
		default:
			return ClassContextOverflow
		}
	}
	if (status == http.StatusBadRequest || status == http.StatusUnprocessableEntity) && mentionsToolsUnsupported(text) {
		return ClassToolsUnsupported
	}
	switch {
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return ClassAuth
	case status == http.StatusNotFound:
		return ClassNotFound
	case status == http.StatusRequestEntityTooLarge:
		// The body is too big for the server: a smaller conversation is
		// the fix, as for a context-length error.
		return ClassContextOverflow
	case status == http.StatusPaymentRequired, mentionsQuota(text):
		// Out of credits or quota (OpenAI sends this as a 429): retrying
		// will not help.
		return ClassOther
	case status == http.StatusRequestTimeout, status == http.StatusConflict,
		status == http.StatusTooEarly, status == http.StatusTooManyRequests,
		status >= 500:
		return ClassRetryable
	case status >= 400:
		return ClassBadRequest
	}
	if mentionsTransient(text) {
		return ClassRetryable
	}
	return ClassOther
}

var contextOverflowMarkers = []string{
	"context_length_exceeded",              // OpenAI, Azure, Cerebras code
	"exceed_context_size",                  // llama.cpp type exceed_context_size_error
	"context length",                       // "maximum context length is N tokens" (OpenAI, vLLM, DeepSeek, OpenRouter)
	"context_length",                       //
	"context window",                       //
	"context size",                         // llama.cpp "exceeds the available context size"
	"exceeds the context",                  //
	"maximum prompt length",                // xAI
	"prompt is too long",                   // Anthropic-compatible endpoints
	"input is too long",                    // Bedrock-style
	"reduce the length of the",             // OpenAI, Groq: "Please reduce the length of the messages"
	"exceeds the maximum number of tokens", // Gemini-compatible
	"too many input tokens",                //
}

func mentionsContextOverflow(text string) bool {
	for _, m := range contextOverflowMarkers {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}

// toolsUnsupportedMarkers are what servers say when a request's tools
// cannot be used by the model or the server as started.
var toolsUnsupportedMarkers = []string{
	"does not support tools",            // Ollama: "registry.ollama.ai/library/gemma:2b does not support tools"
	"tools param requires --jinja",      // llama.cpp server started without --jinja
	"--enable-auto-tool-choice",         // vLLM: "auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser
	"does not support tool",             // "does not support tool use", "tool calling", "tool_choice"
	"does not support function calling", //
	"tools are not supported",           //
	"tool use is not supported",         // LM Studio and others
	"tool calling is not supported",     //
	"function calling is not supported", //
	"tool_use is not supported",         //
}

// IsToolsUnsupported reports whether err says the model does not take tools.
func IsToolsUnsupported(err error) bool {
	var pe *Error
	return errors.As(err, &pe) && pe.Class == ClassToolsUnsupported
}

func mentionsToolsUnsupported(text string) bool {
	for _, m := range toolsUnsupportedMarkers {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}

func mentionsQuota(text string) bool {
	return strings.Contains(text, "insufficient_quota") || strings.Contains(text, "exceeded your current quota")
}

var transientMarkers = []string{
	"overloaded", "rate limit", "rate_limit", "too many requests",
	"temporarily unavailable", "server_error", "server error", "internal error",
	"timeout", "timed out", "try again", "unavailable",
}

func mentionsTransient(text string) bool {
	for _, m := range transientMarkers {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}

// timeNow is the clock used for HTTP-date Retry-After headers; tests set it.
var timeNow = time.Now

// parseRetryAfter reads retry-after-ms (milliseconds, preferred: it is the
// more precise) or Retry-After (seconds or an HTTP date). It returns 0 when
// neither is present or valid; a date in the past is 0.
func parseRetryAfter(h http.Header) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(timeNow()); d > 0 {
			return d.Round(time.Second)
		}
	}
	return 0
}

// maxMessageLen bounds the Message of an Error.
const maxMessageLen = 400

// cleanMessage makes a provider message fit one line of an error.
func cleanMessage(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxMessageLen {
		cut := maxMessageLen
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// redact removes the API key from text. Keys shorter than 4 bytes are
// placeholders ("x", "sk") that would mangle messages without protecting
// anything.
func redact(text, key string) string {
	if len(key) < 4 {
		return text
	}
	return strings.ReplaceAll(text, key, "[redacted]")
}
