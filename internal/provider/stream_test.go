package provider

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/provider/providertest"
	openai "github.com/sashabaranov/go-openai"
)

func TestRequestShape(t *testing.T) {
	zero := float32(0)
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "ls", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	tests := []struct {
		name    string
		key     string
		req     Request
		headers map[string]string
		check   func(t *testing.T, body map[string]any, h http.Header)
	}{
		{"defaults", "sk-abc123", Request{Model: "llama", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}},
			nil, func(t *testing.T, body map[string]any, h http.Header) {
				if body["stream"] != true || body["model"] != "llama" {
					t.Errorf("body %v", body)
				}
				so, _ := body["stream_options"].(map[string]any)
				if so["include_usage"] != true {
					t.Errorf("stream_options %v", body["stream_options"])
				}
				for _, k := range []string{"max_tokens", "max_completion_tokens", "temperature", "tools"} {
					if _, ok := body[k]; ok {
						t.Errorf("%s sent but not asked for", k)
					}
				}
				if h.Get("Authorization") != "Bearer sk-abc123" || h.Get("Accept") != "text/event-stream" {
					t.Errorf("headers %v", h)
				}
			}},
		{"max tokens and zero temperature", "", Request{Model: "qwen", MaxTokens: 512, Temperature: &zero, Tools: tools},
			map[string]string{"X-Title": "agent"}, func(t *testing.T, body map[string]any, h http.Header) {
				if body["max_tokens"] != float64(512) {
					t.Errorf("max_tokens %v", body["max_tokens"])
				}
				if temp, ok := body["temperature"].(float64); !ok || temp > 1e-30 {
					t.Errorf("temperature %v, want (about) zero and present", body["temperature"])
				}
				if tl, _ := body["tools"].([]any); len(tl) != 1 {
					t.Errorf("tools %v", body["tools"])
				}
				if h.Get("Authorization") != "" {
					t.Errorf("no key must send no Authorization, got %q", h.Get("Authorization"))
				}
				if h.Get("X-Title") != "agent" {
					t.Errorf("extra header missing: %v", h)
				}
			}},
		{"reasoning model", "k", Request{Model: "gpt-5-mini", MaxTokens: 100},
			nil, func(t *testing.T, body map[string]any, h http.Header) {
				if body["max_completion_tokens"] != float64(100) || body["max_tokens"] != nil {
					t.Errorf("max_completion_tokens %v max_tokens %v", body["max_completion_tokens"], body["max_tokens"])
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.New(t, providertest.Text("ok"))
			p := NewOpenAI(Config{BaseURL: srv.URL + "/", APIKey: tt.key, ExtraHeaders: tt.headers})
			s, err := p.Stream(t.Context(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			drain(t, s)
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			var body map[string]any
			if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			tt.check(t, body, reqs[0].Header)
		})
	}
}

func drain(t *testing.T, s Stream) {
	t.Helper()
	defer s.Close()
	for {
		if _, err := s.Recv(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("stream: %v", err)
			}
			return
		}
	}
}

func TestStreamOptionsRefusedIsRetriedWithout(t *testing.T) {
	srv := providertest.New(t,
		providertest.HTTPError(422, nil, `{"error":{"message":"Extra inputs are not permitted: stream_options","code":422}}`),
		providertest.Text("fine"),
	)
	o := collect(t, t.Context(), NewOpenAI(Config{BaseURL: srv.URL}))
	if o.err != nil || o.text != "fine" {
		t.Fatalf("err %v text %q", o.err, o.text)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].Chat.StreamOptions != nil {
		t.Fatalf("want a second request without stream_options, got %d requests", len(reqs))
	}
}

func TestScriptedStepsThroughProvider(t *testing.T) {
	srv := providertest.New(t,
		providertest.Reply(
			providertest.ReasoningChunk("hmm", "reasoning"),
			providertest.TextChunk("I'll look."),
			providertest.Comment("OPENROUTER PROCESSING"),
		),
	)
	srv.Add(providertest.Reply(append(append(
		providertest.ToolCallChunks(0, "call_1", "read", `{"path":"main.go"}`, 4),
		providertest.ToolCallChunks(1, "call_2", "ls", `{}`, 1)...),
		providertest.FinishChunk("tool_calls"),
		providertest.UsageChunk(providertest.Usage{Prompt: 100, Completion: 20, Cached: 60, Reasoning: 5}))...))
	p := NewOpenAI(Config{BaseURL: srv.URL})

	// The first step has no finish and is cut by [DONE]: taken as "stop".
	o := collect(t, t.Context(), p)
	if o.err != nil || o.reasoning != "hmm" || o.text != "I'll look." || o.finish != "stop" {
		t.Fatalf("first: %+v", o)
	}
	o = collect(t, t.Context(), p)
	want := []ToolCall{{Index: 0, ID: "call_1", Name: "read", Arguments: `{"path":"main.go"}`}, {Index: 1, ID: "call_2", Name: "ls", Arguments: `{}`}}
	if o.err != nil || len(o.ends) != 2 || o.ends[0] != want[0] || o.ends[1] != want[1] {
		t.Fatalf("tool calls %+v, err %v", o.ends, o.err)
	}
	if o.finish != "tool_calls" || o.usage == nil || *o.usage != (Usage{Input: 100, Output: 20, Reasoning: 5, CachedInput: 60}) {
		t.Fatalf("finish %q usage %+v", o.finish, o.usage)
	}
	deltas := 0
	for _, ev := range o.events {
		if ev.Type == EventToolCallDelta && ev.ToolCall.Index == 0 {
			deltas++
		}
	}
	if deltas != 4 {
		t.Errorf("fragments of call 0: %d deltas, want 4", deltas)
	}
}

func TestCutShortAndDisconnectAreBroken(t *testing.T) {
	srv := providertest.New(t,
		providertest.CutShort(providertest.TextChunk("half")),
		providertest.Reply(providertest.TextChunk("half"), providertest.Disconnect()),
	)
	p := NewOpenAI(Config{BaseURL: srv.URL})
	for _, name := range []string{"cut short", "disconnect"} {
		o := collect(t, t.Context(), p)
		var pe *Error
		if !errors.As(o.err, &pe) || pe.Class != ClassBrokenStream || o.text != "half" {
			t.Errorf("%s: err %v text %q", name, o.err, o.text)
		}
	}
}

func TestUnreachableBaseURLIsNamed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/v1"
	l.Close()
	_, err = NewOpenAI(Config{BaseURL: base, APIKey: "sk-secret-unreachable"}).Stream(t.Context(), Request{Model: "m"})
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("err %T %v", err, err)
	}
	if pe.Class != ClassRetryable || !strings.Contains(err.Error(), "cannot reach "+base) || !strings.Contains(err.Error(), "refused") {
		t.Errorf("class %v, error %q", pe.Class, err)
	}
	if strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("key in error: %q", err)
	}
}

func TestBaseURLCredentialsAreNotShown(t *testing.T) {
	if got := displayURL("https://user:pa55word@example.com/v1?key=abc"); got != "https://example.com/v1" {
		t.Errorf("displayURL = %q", got)
	}
}

func TestAPIKeyNeverInErrors(t *testing.T) {
	const key = "sk-proj-SECRETSECRET1234"
	echo := func(req providertest.Request) string { return req.Header.Get("Authorization") }
	tests := []struct {
		name string
		step func(providertest.Request) providertest.Step
	}{
		{"401 JSON echoing the header", func(r providertest.Request) providertest.Step {
			return providertest.HTTPError(401, nil, `{"error":{"message":"bad key `+echo(r)+`","code":"invalid_api_key"}}`)
		}},
		{"500 plain text echoing the header", func(r providertest.Request) providertest.Step {
			return providertest.HTTPError(500, map[string]string{"Content-Type": "text/plain"}, "auth header was "+echo(r))
		}},
		{"mid-stream error with the key", func(r providertest.Request) providertest.Step {
			return providertest.Reply(providertest.TextChunk("a"), providertest.JSONChunk(`{"error":{"message":"key `+key+` revoked"}}`))
		}},
		{"malformed chunk with the key", func(r providertest.Request) providertest.Step {
			return providertest.Reply(providertest.JSONChunk(`{"broken ` + key))
		}},
		{"key across the cut of a long message", func(r providertest.Request) providertest.Step {
			return providertest.HTTPError(500, map[string]string{"Content-Type": "text/plain"}, strings.Repeat("x", 190)+key)
		}},
		{"key across the cut of a malformed chunk", func(r providertest.Request) providertest.Step {
			return providertest.Reply(providertest.JSONChunk(`{"broken ` + strings.Repeat("y", 100) + key))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.New(t)
			srv.Handle(tt.step)
			o := collect(t, t.Context(), NewOpenAI(Config{BaseURL: srv.URL, APIKey: key}))
			if o.err == nil {
				t.Fatal("want an error")
			}
			var pe *Error
			errors.As(o.err, &pe)
			for _, text := range []string{o.err.Error(), pe.Message} {
				if strings.Contains(text, key) || strings.Contains(text, "SECRETSECRET") {
					t.Errorf("key in error text: %q", text)
				}
			}
			if !strings.Contains(o.err.Error(), "[redacted]") {
				t.Errorf("expected the key's place to be marked: %q", o.err)
			}
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	never := make(chan struct{})
	srv := providertest.New(t, providertest.Reply(providertest.TextChunk("first"), providertest.Block(never), providertest.TextChunk("never")))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s, err := NewOpenAI(Config{BaseURL: srv.URL}).Stream(ctx, Request{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ev, err := s.Recv()
	if err != nil || ev.Text != "first" {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	// Recv is now blocked on the server; cancel from elsewhere.
	go func() {
		_ = srv.WaitRequests(ctx, 1)
		cancel()
	}()
	start := time.Now()
	_, err = s.Recv()
	var pe *Error
	if !errors.As(err, &pe) || pe.Class != ClassCanceled || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want ClassCanceled wrapping context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancel took %s", d)
	}
}

func TestCloseUnblocksRecv(t *testing.T) {
	never := make(chan struct{})
	srv := providertest.New(t, providertest.Reply(providertest.TextChunk("first"), providertest.Block(never)))
	s, err := NewOpenAI(Config{BaseURL: srv.URL}).Stream(t.Context(), Request{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recv(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Recv()
		done <- err
	}()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	err = <-done
	var pe *Error
	if !errors.As(err, &pe) || pe.Class != ClassCanceled {
		t.Fatalf("err %v, want ClassCanceled", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestCanceledBeforeStream(t *testing.T) {
	srv := providertest.New(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := NewOpenAI(Config{BaseURL: srv.URL}).Stream(ctx, Request{Model: "m"})
	var pe *Error
	if !errors.As(err, &pe) || pe.Class != ClassCanceled {
		t.Fatalf("err %v", err)
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("a canceled context must send nothing")
	}
}

func TestToolArgumentsAreCapped(t *testing.T) {
	piece := strings.Repeat("a", 64<<10)
	chunks := providertest.ToolCallChunks(0, "call_big", "write", "", 0)
	for range maxToolArgumentBytes/len(piece) + 1 {
		chunks = append(chunks, providertest.JSONChunk(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"`+piece+`"}}]}}]}`))
	}
	srv := providertest.New(t, providertest.Reply(append(chunks, providertest.FinishChunk("tool_calls"))...))
	o := collect(t, t.Context(), NewOpenAI(Config{BaseURL: srv.URL}))
	var pe *Error
	if !errors.As(o.err, &pe) || pe.Class != ClassBadRequest || !strings.Contains(pe.Message, "write") {
		t.Fatalf("err %v", o.err)
	}
}

func TestHTMLPageOn200(t *testing.T) {
	srv := providertest.New(t, providertest.Step{Status: 200, Header: map[string]string{"Content-Type": "text/html; charset=utf-8"}, Body: "<html><title>Login</title></html>"})
	o := collect(t, t.Context(), NewOpenAI(Config{BaseURL: srv.URL}))
	if o.err == nil || !strings.Contains(o.err.Error(), srv.URL) {
		t.Fatalf("err %v, want it to name the base URL", o.err)
	}
}

func TestOutOfCreditSaysWhatToFix(t *testing.T) {
	srv := providertest.New(t, providertest.HTTPError(402, nil, `{"error":{"message":"Insufficient credits","code":402}}`))
	o := collect(t, t.Context(), NewOpenAI(Config{BaseURL: srv.URL}))
	var pe *Error
	if !errors.As(o.err, &pe) || pe.Class != ClassOther || pe.Retryable() || !strings.Contains(pe.Error(), "billing") {
		t.Fatalf("err %v", o.err)
	}
}
