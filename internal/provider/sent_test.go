package provider

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sashabaranov/go-openai"
)

// Request.Sent is called once, after the body's last byte was read from
// it (the server has the whole body before it answers), and once for a
// request that fails before it is sent.
func TestRequestSentCalledOnceTheBodyIsWritten(t *testing.T) {
	var calls atomic.Int32
	var atArrival int32 = -1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		atomic.StoreInt32(&atArrival, calls.Load())
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	msgs := []openai.ChatCompletionMessage{{Role: "user", Content: strings.Repeat("a long message ", 20000)}}
	p := NewOpenAI(Config{BaseURL: srv.URL + "/v1", APIKey: "k"})
	s, err := p.Stream(t.Context(), Request{Model: "m", Messages: msgs, Sent: func() { calls.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	drain(t, s)
	if n := calls.Load(); n != 1 || atomic.LoadInt32(&atArrival) != 1 {
		t.Errorf("Sent called %d times, %d of them before the server had the body; want 1 and 1", n, atomic.LoadInt32(&atArrival))
	}

	calls.Store(0)
	bad := NewOpenAI(Config{BaseURL: "http://127.0.0.1:1/v1", APIKey: "k"})
	if _, err := bad.Stream(t.Context(), Request{Model: "m", Messages: msgs, Sent: func() { calls.Add(1) }}); err == nil {
		t.Fatal("a request to a closed port went through")
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("Sent called %d times for a failed request, want 1", n)
	}
}
