package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// longHistory is a resumed session of turns turns, five parts each (the
// chat's benchmark session): a question; an answer with text, a read
// whose 900-byte output is pruned for all but the newest 40 turns, more
// text and a step-finish.
func longHistory(b testing.TB, h *harness, turns int) []message.Entry {
	b.Helper()
	ctx := context.Background()
	now := time.Now()
	var in []message.Entry
	for i := range turns {
		var compacted time.Time
		if i < turns-40 {
			compacted = now
		}
		in = append(in, message.Entry{
			Message: message.Message{Role: message.RoleUser, FinishedAt: now},
			Parts: []message.Part{{Type: message.PartText,
				Text: fmt.Sprintf("question %d: could you look at the handler and tell me why it fails?", i)}},
		}, message.Entry{
			Message: message.Message{Role: message.RoleAssistant, Model: "gpt-4.1", FinishReason: "stop", FinishedAt: now},
			Parts: []message.Part{
				{Type: message.PartText, Text: fmt.Sprintf("Let me read it. Answer **%d** follows:\n\n- first point\n- second point\n\n```go\nfunc f() int { return %d }\n```", i, i)},
				{Type: message.PartTool, Tool: &message.ToolState{CallID: fmt.Sprintf("c%d", i), Name: "read", Status: message.ToolCompleted,
					Input: `{"path":"main.go"}`, Output: strings.Repeat("a line of the file being read\n", 30), StartedAt: now, EndedAt: now, CompactedAt: compacted}},
				{Type: message.PartText, Text: "The handler returns early when the context is done; " + strings.Repeat("more explanation ", 20)},
				{Type: message.PartStepFinish, Step: &message.StepState{Usage: message.Usage{Input: 2000, Output: 150}, FinishReason: "stop"}},
			},
		})
	}
	if err := h.store.ImportHistory(ctx, h.r.state.sess.ID, in); err != nil {
		b.Fatal(err)
	}
	hist, err := h.store.LoadHistory(ctx, h.r.state.sess.ID)
	if err != nil {
		b.Fatal(err)
	}
	return hist
}

// BenchmarkRequest10k is the loop's share of Enter → request in a
// resumed session of 10,000 parts (2,000 turns, 4,000 messages sent):
// building the request (one walk over the history, which also prices it
// for the compaction decision), sending it to a server on 127.0.0.1 that
// reads the body (the provider's encoding and the transfer), and
// requestEstimate alone (what compaction and undo price histories with).
// "uncached" is what building and encoding cost before the request
// cache: the whole history converted and encoded again.
func BenchmarkRequest10k(b *testing.B) {
	h := newHarness(b)
	ctx := context.Background()
	h.r.state.history = longHistory(b, h, 2000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	b.Cleanup(srv.Close)
	p := provider.NewOpenAI(provider.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-bench"})
	h.r.stepper.buildRequest(ctx) // the cache filled, as by the session's first step
	b.ReportAllocs()
	b.Run("estimate", func(b *testing.B) {
		for b.Loop() {
			h.r.comp.requestEstimate(h.r.state.history)
		}
	})
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			h.r.stepper.buildRequest(ctx)
		}
	})
	b.Run("build-first", func(b *testing.B) {
		// The first request after a resume, the cache warmed while the
		// message was typed.
		h.r.stepper.reqc = requestCache{}
		hist, _, opt, est, _ := h.r.stepper.historyToWarm()
		for b.Loop() {
			b.StopTimer()
			h.r.stepper.reqc = requestCache{}
			h.r.stepper.reqc.warm(hist, opt, est, func() bool { return false })
			b.StartTimer()
			h.r.stepper.buildRequest(ctx)
		}
	})
	b.Run("send", func(b *testing.B) {
		req := h.r.stepper.buildRequest(ctx)
		b.SetBytes(int64(len(encodeOrFail(b, req.Messages))))
		for b.Loop() {
			st, err := p.Stream(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			st.Close()
		}
	})
	b.Run("uncached", func(b *testing.B) {
		for b.Loop() {
			conv, _ := RepairPairs(ToModelMessages(h.r.state.history, h.r.stepper.convertOptions()))
			encodeOrFail(b, conv)
		}
	})
}

func encodeOrFail(b *testing.B, v any) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkRequestWarm10k is the warming of an empty request cache over
// a resumed session of 10,000 parts (what the chat does while the first
// message is typed: reqwarm.go), with the session's estimator.
func BenchmarkRequestWarm10k(b *testing.B) {
	h := newHarness(b)
	h.r.state.history = longHistory(b, h, 2000)
	hist, _, opt, est, ok := h.r.stepper.historyToWarm()
	if !ok {
		b.Fatal("nothing to warm")
	}
	b.ReportAllocs()
	for b.Loop() {
		var c requestCache
		c.warm(hist, opt, est, func() bool { return false })
	}
}

// BenchmarkTodoNow is the todo list's share of every request and
// compaction decision (todo.go) in a resumed session of 4,000 messages
// whose first answer wrote a list: the history sends that call itself,
// so no todo message is added.
func BenchmarkTodoNow(b *testing.B) {
	h := newHarness(b)
	hist := longHistory(b, h, 2000)
	hist[1].Parts = append(hist[1].Parts, message.Part{Type: message.PartTool, Tool: &message.ToolState{
		Name: "todo_write", Status: message.ToolCompleted, Input: `{"todos":[{"id":"1","text":"fix the handler","status":"pending"}]}`}})
	if text, _ := todoNow(hist, h.r.mp.est); text != "" {
		b.Fatalf("a list the history sends is sent again: %q", text)
	}
	b.ReportAllocs()
	for b.Loop() {
		todoNow(hist, h.r.mp.est)
	}
}
