// Package providertest is an in-process OpenAI-compatible chat-completions
// server for tests. It listens on 127.0.0.1, plays scripted steps (one per
// request, in order) as SSE streams or HTTP errors, and records every
// request. When the script runs out it asks a Handle function for the next
// step, or answers HTTP 500 "providertest: no scripted step left".
//
// A step is built from chunks: Text, Reply, ToolCall(s), HTTPError, CutShort
// and RawSSE cover the common cases; Delay and Block pace a stream, Hang
// never answers at all, and a stream stops as soon as the client goes away, so nothing leaks when a test
// cancels mid-stream.
package providertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// NoStepLeft is the error message of the answer to a request that arrives
// after the script ran out, when no Handle function is set.
const NoStepLeft = "providertest: no scripted step left"

// maxRequestBytes bounds a recorded request body.
const maxRequestBytes = 64 << 20

// Request is one request the server received.
type Request struct {
	// Body is the raw request body.
	Body []byte
	// Chat is Body decoded (zero if it did not decode).
	Chat   openai.ChatCompletionRequest
	Header http.Header
}

// Server is a scripted OpenAI-compatible server.
type Server struct {
	// URL is the API root to configure a client with, ending in /v1.
	URL string

	srv  *httptest.Server
	t    testing.TB
	done chan struct{}

	mu         sync.Mutex
	steps      []Step
	next       int
	handle     func(Request) Step
	requests   []Request
	unscripted int
	arrived    chan struct{} // closed and replaced whenever a request arrives
	models     modelsAnswer
	modelReqs  []Request
	conns      int                     // connections accepted
	connected  chan struct{}           // closed when the first connection is accepted
	flight     struct{ now, most int } // chat requests being answered now, and the most at once
	bodyOnly   atomic.Pointer[string]  // SkipDecode's model
}

// SkipDecode has the server keep each chat request's body without
// decoding it into Request.Chat, for benchmarks of the client's time: a
// long session's 150 KB request took this server ≈ 3.6 ms to decode
// (encoding/json at ≈ 47 MB/s) before it answered, time a benchmark would
// count as the agent's. Its answers name model. Call it before the
// first request.
func (s *Server) SkipDecode(model string) { s.bodyOnly.Store(&model) }

// modelsAnswer is how GET /v1/models answers: a list of ids, an HTTP error,
// or never.
type modelsAnswer struct {
	ids    []string
	status int
	errMsg string
	hang   bool
}

// New starts a server playing steps; it is closed when the test ends.
func New(t testing.TB, steps ...Step) *Server {
	t.Helper()
	s := &Server{t: t, steps: steps, done: make(chan struct{}), arrived: make(chan struct{}),
		connected: make(chan struct{}), models: modelsAnswer{ids: []string{"providertest"}}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveChat)
	mux.HandleFunc("GET /v1/models", s.serveModels)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, http.StatusNotFound, "providertest: no route for "+r.Method+" "+r.URL.Path, "invalid_request_error")
	})
	s.srv = httptest.NewUnstartedServer(mux) // binds 127.0.0.1
	s.srv.Config.ConnState = s.connState
	s.srv.Start()
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.close)
	return s
}

// connState counts the connections accepted.
func (s *Server) connState(_ net.Conn, state http.ConnState) {
	if state != http.StateNew {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns++; s.conns == 1 {
		close(s.connected)
	}
}

// Connections is how many TCP connections the server has accepted.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// Connected is closed when the server accepts its first connection
// (whether or not a request comes on it).
func (s *Server) Connected() <-chan struct{} { return s.connected }

func (s *Server) close() {
	close(s.done) // unblocks Delay and Block chunks
	s.srv.CloseClientConnections()
	s.srv.Close()
	s.mu.Lock()
	n := s.unscripted
	s.mu.Unlock()
	if n > 0 {
		s.t.Logf("providertest: %d request(s) arrived after the script ran out and got HTTP 500", n)
	}
}

// Add appends steps to the script.
func (s *Server) Add(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, steps...)
}

// Handle sets the function asked for a step once the script is exhausted.
// It is called from the server's goroutines, once per request.
func (s *Server) Handle(fn func(req Request) Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handle = fn
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// InFlight is how many chat requests are being answered now.
func (s *Server) InFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flight.now
}

// MaxInFlight is the most chat requests that were being answered at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flight.most
}

// Unscripted returns how many requests were answered with NoStepLeft.
func (s *Server) Unscripted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unscripted
}

// WaitRequests blocks until n requests have arrived or ctx is done.
func (s *Server) WaitRequests(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		got, arrived := len(s.requests), s.arrived
		s.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-arrived:
		case <-ctx.Done():
			return fmt.Errorf("providertest: waiting for %d requests, got %d: %w", n, got, ctx.Err())
		}
	}
}

// SetModels sets the ids GET /v1/models lists (by default one,
// "providertest"), in this order.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = modelsAnswer{ids: append([]string(nil), ids...)}
}

// SetModelsError makes GET /v1/models answer an HTTP error with message msg.
func (s *Server) SetModelsError(status int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = modelsAnswer{status: status, errMsg: msg}
}

// SetModelsHang makes GET /v1/models never answer (until the client gives
// up or the test ends).
func (s *Server) SetModelsHang() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = modelsAnswer{hang: true}
}

// ModelRequests returns the GET /v1/models requests received so far; they
// are not among Requests.
func (s *Server) ModelRequests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.modelReqs...)
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.modelReqs = append(s.modelReqs, Request{Header: r.Header.Clone()})
	ans := s.models
	s.mu.Unlock()
	switch {
	case ans.hang:
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	case ans.status != 0:
		writeJSONError(w, ans.status, ans.errMsg, "invalid_request_error")
		return
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int    `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, id := range ans.ids {
		list.Data = append(list.Data, model{ID: id, Object: "model", OwnedBy: "providertest"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes))
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "providertest: read request: "+err.Error(), "invalid_request_error")
		return
	}
	req := Request{Body: body, Header: r.Header.Clone()}
	if model := s.bodyOnly.Load(); model != nil {
		req.Chat.Model = *model
	} else {
		_ = json.Unmarshal(body, &req.Chat)
	}

	s.mu.Lock()
	s.flight.now++
	s.flight.most = max(s.flight.most, s.flight.now)
	defer func() {
		s.mu.Lock()
		s.flight.now--
		s.mu.Unlock()
	}()
	s.requests = append(s.requests, req)
	close(s.arrived)
	s.arrived = make(chan struct{})
	var (
		step  Step
		found bool
	)
	if s.next < len(s.steps) {
		step, found = s.steps[s.next], true
		s.next++
	}
	handle := s.handle
	if !found && handle == nil {
		s.unscripted++
	}
	s.mu.Unlock()

	switch {
	case found:
	case handle != nil:
		step = handle(req)
	default:
		writeJSONError(w, http.StatusInternalServerError, NoStepLeft, "server_error")
		return
	}
	s.play(w, r, &req, step)
}

// play writes one step.
func (s *Server) play(w http.ResponseWriter, r *http.Request, req *Request, step Step) {
	if step.Silent {
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	}
	for k, v := range step.Header {
		w.Header().Set(k, v)
	}
	if step.Status >= 300 || step.Body != "" {
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		status := step.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, step.Body)
		return
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	w.Header().Set("Cache-Control", "no-cache")
	status := step.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	rc := http.NewResponseController(w)
	ctx := r.Context()
	flush := func() bool { return rc.Flush() == nil && ctx.Err() == nil }
	// The headers go out at once, so a stream that stalls before its
	// first chunk stalls after the headers, as a real server's does.
	if !flush() {
		return
	}

	if step.Raw != "" {
		for _, event := range splitEvents(step.Raw) {
			if _, err := io.WriteString(w, event); err != nil || !flush() {
				return
			}
		}
		return
	}

	p := player{req: req, model: req.Chat.Model}
	if p.model == "" {
		p.model = "providertest"
	}
	for _, c := range step.Chunks {
		switch {
		case c.delay > 0:
			timer := time.NewTimer(c.delay)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				return
			case <-s.done:
				timer.Stop()
				return
			}
		case c.block != nil:
			select {
			case <-c.block:
			case <-ctx.Done():
				return
			case <-s.done:
				return
			}
		case c.abort:
			panic(http.ErrAbortHandler) // drops the connection
		default:
			if _, err := w.Write(p.render(c)); err != nil || !flush() {
				return
			}
		}
	}
	if !step.NoDone {
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
		_ = rc.Flush()
	}
}

// splitEvents cuts an SSE body after each blank line, keeping the bytes as
// they are, so a recorded stream is replayed event by event.
func splitEvents(body string) []string {
	var out []string
	for len(body) > 0 {
		i := strings.Index(body, "\n\n")
		if i < 0 {
			out = append(out, body)
			break
		}
		out = append(out, body[:i+2])
		body = body[i+2:]
	}
	return out
}

func writeJSONError(w http.ResponseWriter, status int, msg, typ string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": nil}})
	_, _ = w.Write(b)
}
