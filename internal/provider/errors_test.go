package provider

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestClassifyAPI(t *testing.T) {
	tests := []struct {
		name           string
		status         int
		code, typ, msg string
		want           Class
	}{
		{"openai context code", 400, "context_length_exceeded", "invalid_request_error", "This model's maximum context length is 128000 tokens.", ClassContextOverflow},
		{"vllm message", 400, "", "BadRequestError", "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens", ClassContextOverflow},
		{"llama.cpp type", 400, "400", "exceed_context_size_error", "the request exceeds the available context size, try increasing it", ClassContextOverflow},
		{"openrouter 400", 400, "400", "", "This endpoint's maximum context length is 131072 tokens. However, you requested about 140000 tokens", ClassContextOverflow},
		{"anthropic compat", 400, "", "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum", ClassContextOverflow},
		{"xai prompt length", 400, "", "", "This model's maximum prompt length is 131072 but the request contains 140000 tokens.", ClassContextOverflow},
		{"context error mid-stream", 0, "", "", "maximum context length exceeded", ClassContextOverflow},
		{"context error as 500", 500, "", "", "Input is too long for requested model.", ClassContextOverflow},
		{"413", 413, "", "", "Request Entity Too Large", ClassContextOverflow},
		{"401", 401, "invalid_api_key", "", "Incorrect API key provided", ClassAuth},
		{"403", 403, "", "", "forbidden", ClassAuth},
		{"404 model", 404, "model_not_found", "", "The model `gpt-9` does not exist", ClassNotFound},
		{"400 plain", 400, "", "invalid_request_error", "Invalid 'messages[2].tool_call_id'", ClassBadRequest},
		{"422", 422, "", "", "field required", ClassBadRequest},
		{"402 credits", 402, "", "", "Insufficient credits", ClassOther},
		{"429 quota", 429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota", ClassOther},
		{"429 rate", 429, "rate_limit_exceeded", "requests", "Rate limit reached", ClassRetryable},
		{"429 TPM too large is not overflow", 429, "rate_limit_exceeded", "tokens", "Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 50000", ClassRetryable},
		{"408", 408, "", "", "", ClassRetryable},
		{"409", 409, "", "", "", ClassRetryable},
		{"425", 425, "", "", "", ClassRetryable},
		{"500", 500, "", "server_error", "The server had an error", ClassRetryable},
		{"502", 502, "", "", "Bad Gateway", ClassRetryable},
		{"503", 503, "", "", "", ClassRetryable},
		{"529 overloaded", 529, "", "overloaded_error", "Overloaded", ClassRetryable},
		{"mid-stream numeric 429", 0, "429", "", "Rate limit exceeded", ClassRetryable},
		{"mid-stream numeric 401", 0, "401", "", "User not found", ClassAuth},
		{"mid-stream overloaded", 0, "overloaded", "server_error", "upstream overloaded", ClassRetryable},
		{"mid-stream unknown", 0, "", "", "something odd", ClassOther},
		{"ollama no tools", 400, "", "api_error", "registry.ollama.ai/library/gemma:2b does not support tools", ClassToolsUnsupported},
		{"llama.cpp no jinja", 400, "", "invalid_request_error", "tools param requires --jinja flag", ClassToolsUnsupported},
		{"vllm auto tool choice", 400, "", "BadRequestError", `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`, ClassToolsUnsupported},
		{"lm studio tool use", 400, "", "", "This model does not support tool use", ClassToolsUnsupported},
		{"422 tools", 422, "", "", "Tools are not supported by this model", ClassToolsUnsupported},
		{"tools mention as 500 is a server failure", 500, "", "", "does not support tools", ClassRetryable},
		{"bad tool schema is not tool-less", 400, "", "", "Invalid schema for function 'bash'", ClassBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := classifyAPI(tt.status, tt.code, tt.typ, tt.msg); got != tt.want {
				t.Errorf("classifyAPI(%d, %q, %q, %q) = %v, want %v", tt.status, tt.code, tt.typ, tt.msg, got, tt.want)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	inner := &Error{Class: ClassAuth, StatusCode: 401}
	tests := []struct {
		name string
		err  error
		want Class
	}{
		{"canceled", context.Canceled, ClassCanceled},
		{"wrapped canceled", fmt.Errorf("step: %w", context.Canceled), ClassCanceled},
		{"deadline", context.DeadlineExceeded, ClassRetryable},
		{"eof", io.EOF, ClassBrokenStream},
		{"unexpected eof", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), ClassBrokenStream},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, ClassRetryable},
		{"refused", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, ClassRetryable},
		{"dns", &net.DNSError{Err: "no such host", Name: "api.example"}, ClassRetryable},
		{"bare reset", syscall.ECONNRESET, ClassRetryable},
		{"http2 message", errors.New("http2: server sent GOAWAY and closed the connection"), ClassRetryable},
		{"certificate", x509.UnknownAuthorityError{}, ClassOther},
		{"plain", errors.New("boom"), ClassOther},
		{"existing", fmt.Errorf("wrapped: %w", inner), ClassAuth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classify(tt.err)
			if got.Class != tt.want {
				t.Errorf("Classify(%v).Class = %v, want %v", tt.err, got.Class, tt.want)
			}
			if !errors.Is(got, tt.err) && !errors.Is(tt.err, got) {
				t.Errorf("Classify(%v) lost the cause", tt.err)
			}
		})
	}
	if Classify(nil) != nil {
		t.Error("Classify(nil) != nil")
	}
	if Classify(fmt.Errorf("x: %w", inner)) != inner {
		t.Error("an *Error in the chain must be returned as is")
	}
}

func TestRetryable(t *testing.T) {
	for c, want := range map[Class]bool{
		ClassRetryable: true, ClassBrokenStream: true, ClassAuth: false, ClassBadRequest: false,
		ClassNotFound: false, ClassContextOverflow: false, ClassCanceled: false, ClassOther: false,
	} {
		if got := (&Error{Class: c}).Retryable(); got != want {
			t.Errorf("%v.Retryable() = %v", c, got)
		}
	}
}

func TestIsContextOverflow(t *testing.T) {
	if !IsContextOverflow(fmt.Errorf("step 3: %w", &Error{Class: ClassContextOverflow})) {
		t.Error("wrapped overflow not detected")
	}
	if IsContextOverflow(&Error{Class: ClassBadRequest}) || IsContextOverflow(errors.New("context length")) || IsContextOverflow(nil) {
		t.Error("false positive")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	restore := timeNow
	timeNow = func() time.Time { return now }
	t.Cleanup(func() { timeNow = restore })
	tests := []struct {
		headers map[string]string
		want    time.Duration
	}{
		{nil, 0},
		{map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{map[string]string{"Retry-After": "-3"}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{map[string]string{"retry-after-ms": "250"}, 250 * time.Millisecond},
		{map[string]string{"retry-after-ms": "1500", "Retry-After": "2"}, 1500 * time.Millisecond},
		{map[string]string{"retry-after-ms": "junk", "Retry-After": "2"}, 2 * time.Second},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.headers {
			h.Set(k, v)
		}
		if got := parseRetryAfter(h); got != tt.want {
			t.Errorf("parseRetryAfter(%v) = %v, want %v", tt.headers, got, tt.want)
		}
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		err  *Error
		want []string
	}{
		{&Error{Class: ClassAuth, StatusCode: 401, Message: "Incorrect API key"}, []string{"chat completion", "authentication failed (HTTP 401): Incorrect API key", "check OPENAI_API_KEY"}},
		{&Error{Class: ClassNotFound, StatusCode: 404, Message: "no model"}, []string{"not found", "check --model and --base-url"}},
		{&Error{Class: ClassRetryable, StatusCode: 429, Message: "slow", RetryAfter: 7 * time.Second}, []string{"rate limited (HTTP 429): slow (retry after 7s)"}},
		{&Error{Class: ClassRetryable, StatusCode: 503}, []string{"temporary failure (HTTP 503)"}},
		{&Error{Class: ClassContextOverflow, StatusCode: 400, Message: "too long"}, []string{"context length exceeded", "compact"}},
		{&Error{Class: ClassBrokenStream, Message: "cut"}, []string{"stream broken: cut"}},
		{&Error{Class: ClassCanceled}, []string{"chat completion: canceled"}},
		{&Error{Class: ClassBadRequest, StatusCode: 400, Message: "bad"}, []string{"request rejected (HTTP 400): bad"}},
	}
	for _, tt := range tests {
		got := tt.err.Error()
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q does not contain %q", got, w)
			}
		}
	}
}

func TestParseAPIErrorShapes(t *testing.T) {
	tests := []struct {
		body      string
		ok        bool
		msg, code string
	}{
		{`{"error":{"message":"m","type":"t","code":"c"}}`, true, "m", "c"},
		{`{"error":{"message":["a","b"],"code":400}}`, true, "a, b", "400"},
		{`{"error":"model not found"}`, true, "model not found", ""},
		{`{"object":"error","message":"vllm says","code":400}`, true, "vllm says", "400"},
		{`[{"error":{"code":400,"message":"gemini says","status":"INVALID_ARGUMENT"}}]`, true, "gemini says", "400"},
		{`{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"detail\":\"too long\"}"}}}`, true, `Provider returned error: {"detail":"too long"}`, "400"},
		{`{"detail":"Not authenticated"}`, true, "Not authenticated", ""},
		{`{"choices":[]}`, false, "", ""},
		{`<html>`, false, "", ""},
		{`{"error":null}`, false, "", ""},
	}
	for _, tt := range tests {
		ae, ok := parseAPIError([]byte(tt.body))
		if ok != tt.ok || ae.Message != tt.msg || ae.Code != tt.code {
			t.Errorf("parseAPIError(%s) = %+v, %v; want msg %q code %q ok %v", tt.body, ae, ok, tt.msg, tt.code, tt.ok)
		}
	}
}

func TestPlainErrorText(t *testing.T) {
	tests := []struct {
		status int
		body   string
		want   string
	}{
		{502, "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>", "502 Bad Gateway"},
		{503, "<!DOCTYPE html><html><body>down</body></html>", "Service Unavailable"},
		{500, "", "Internal Server Error"},
		{500, "upstream timed out\nmore detail", "upstream timed out"},
		{500, strings.Repeat("x", 1000), strings.Repeat("x", 200) + "…"},
	}
	for _, tt := range tests {
		if got := plainErrorText(tt.status, []byte(tt.body)); got != tt.want {
			t.Errorf("plainErrorText(%d, %.30q) = %q, want %q", tt.status, tt.body, got, tt.want)
		}
	}
}
