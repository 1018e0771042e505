package providertest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// post sends a chat request and returns the response.
func post(t *testing.T, ctx context.Context, s *Server, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer test-key")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type sseResult struct {
	chunks []map[string]any
	done   bool
	err    error
}

func readSSE(r io.Reader) sseResult {
	var res sseResult
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			res.done = true
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			res.err = err
			return res
		}
		res.chunks = append(res.chunks, m)
	}
	res.err = sc.Err()
	return res
}

// assembled is what a client would build from the chunks.
type assembled struct {
	text, reasoning string
	args            map[int]string
	ids, names      map[int]string
	finish          string
	usage           map[string]any
	argPieces       map[int]int
}

func assemble(chunks []map[string]any) assembled {
	a := assembled{args: map[int]string{}, ids: map[int]string{}, names: map[int]string{}, argPieces: map[int]int{}}
	for _, c := range chunks {
		if u, ok := c["usage"].(map[string]any); ok {
			a.usage = u
		}
		choices, _ := c["choices"].([]any)
		for _, ch := range choices {
			ch := ch.(map[string]any)
			if f, ok := ch["finish_reason"].(string); ok {
				a.finish = f
			}
			d, _ := ch["delta"].(map[string]any)
			if s, ok := d["content"].(string); ok {
				a.text += s
			}
			if s, ok := d["reasoning_content"].(string); ok {
				a.reasoning += s
			}
			if s, ok := d["reasoning"].(string); ok {
				a.reasoning += s
			}
			calls, _ := d["tool_calls"].([]any)
			for _, tc := range calls {
				tc := tc.(map[string]any)
				i := int(tc["index"].(float64))
				if id, ok := tc["id"].(string); ok && id != "" {
					a.ids[i] = id
				}
				fn := tc["function"].(map[string]any)
				if n, ok := fn["name"].(string); ok && n != "" {
					a.names[i] = n
				}
				if s, ok := fn["arguments"].(string); ok && s != "" {
					a.args[i] += s
					a.argPieces[i]++
				}
			}
		}
	}
	return a
}

func TestTextStep(t *testing.T) {
	s := New(t, Text("Hello there, how are you today?"))
	resp := post(t, t.Context(), s, `{"model":"m1","messages":[{"role":"user","content":"hi"}],"stream":true}`)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	res := readSSE(resp.Body)
	if res.err != nil || !res.done {
		t.Fatalf("err %v, done %v", res.err, res.done)
	}
	a := assemble(res.chunks)
	if a.text != "Hello there, how are you today?" || a.finish != "stop" {
		t.Errorf("text %q finish %q", a.text, a.finish)
	}
	if n := len(res.chunks); n < 4 {
		t.Errorf("want the text in several deltas plus finish and usage, got %d chunks", n)
	}
	if res.chunks[0]["model"] != "m1" {
		t.Errorf("model not echoed: %v", res.chunks[0]["model"])
	}
	if a.usage == nil || a.usage["prompt_tokens"].(float64) < 1 || a.usage["completion_tokens"].(float64) != 8 {
		t.Errorf("usage %v, want estimated prompt and completion 8 (31 bytes / 4)", a.usage)
	}
}

func TestToolCallFragments(t *testing.T) {
	args := `{"path":"dir/ünïcödé.go","content":"x"}`
	s := New(t,
		Reply(append(append(ToolCallChunks(1, "call_a", "write", args, 5),
			ToolCallChunks(2, "glob:1", "glob", `{}`, 3)...), FinishChunk("tool_calls"))...),
		ToolCalls(Call{"c1", "read", `{"path":"a"}`}, Call{"c2", "ls", `{}`}),
	)
	for i, want := range []map[int]string{
		{1: args, 2: `{}`},
		{0: `{"path":"a"}`, 1: `{}`},
	} {
		res := readSSE(post(t, t.Context(), s, `{"model":"m"}`).Body)
		a := assemble(res.chunks)
		if a.finish != "tool_calls" {
			t.Errorf("step %d: finish %q", i, a.finish)
		}
		for idx, w := range want {
			if a.args[idx] != w {
				t.Errorf("step %d call %d: args %q, want %q", i, idx, a.args[idx], w)
			}
			if !json.Valid([]byte(a.args[idx])) {
				t.Errorf("step %d call %d: invalid JSON", i, idx)
			}
		}
		if i == 0 {
			if a.argPieces[1] != 5 || a.ids[1] != "call_a" || a.names[1] != "write" || a.ids[2] != "glob:1" {
				t.Errorf("pieces %v ids %v names %v", a.argPieces, a.ids, a.names)
			}
		}
	}
}

func TestSplitKeepsRunes(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want int
	}{
		{"", 3, 0},
		{"ab", 5, 2},
		{"ééééé", 2, 2},
		{`{"a":1}`, 3, 3},
	}
	for _, tt := range tests {
		got := split(tt.s, tt.n)
		if len(got) != tt.want || strings.Join(got, "") != tt.s {
			t.Errorf("split(%q, %d) = %q", tt.s, tt.n, got)
		}
		for _, p := range got {
			if len(p) > 0 && p[0]&0xC0 == 0x80 {
				t.Errorf("split(%q): piece %q starts inside a rune", tt.s, p)
			}
		}
	}
}

func TestRequestsAreRecorded(t *testing.T) {
	s := New(t, Text("a"), Text("b"))
	ctx := t.Context()
	for _, m := range []string{"first", "second"} {
		resp := post(t, ctx, s, `{"model":"`+m+`","messages":[{"role":"user","content":"q"}],"stream":true,"stream_options":{"include_usage":true}}`)
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	if err := s.WaitRequests(ctx, 2); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d requests", len(reqs))
	}
	if reqs[0].Chat.Model != "first" || reqs[1].Chat.Model != "second" {
		t.Errorf("models %q %q", reqs[0].Chat.Model, reqs[1].Chat.Model)
	}
	if reqs[1].Chat.StreamOptions == nil || !reqs[1].Chat.StreamOptions.IncludeUsage {
		t.Errorf("stream options not decoded")
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer test-key" {
		t.Errorf("header %q", got)
	}
	if !strings.Contains(string(reqs[0].Body), `"content":"q"`) {
		t.Errorf("body %s", reqs[0].Body)
	}
}

func TestWaitRequestsTimesOut(t *testing.T) {
	s := New(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.WaitRequests(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}

func TestHTTPErrorWithHeaders(t *testing.T) {
	body := `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`
	s := New(t, HTTPError(429, map[string]string{"Retry-After": "7", "retry-after-ms": "7000"}, body))
	resp := post(t, t.Context(), s, `{}`)
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" || resp.Header.Get("Retry-After-Ms") != "7000" || string(got) != body {
		t.Fatalf("status %d headers %v body %s", resp.StatusCode, resp.Header, got)
	}
}

func TestCutShortHasNoDone(t *testing.T) {
	s := New(t, CutShort(TextChunk("part")), Text("whole"))
	res := readSSE(post(t, t.Context(), s, `{}`).Body)
	if res.done || assemble(res.chunks).text != "part" || assemble(res.chunks).finish != "" {
		t.Fatalf("cut short: done %v, %+v", res.done, assemble(res.chunks))
	}
	if res := readSSE(post(t, t.Context(), s, `{}`).Body); !res.done {
		t.Fatalf("a normal step must end with [DONE]")
	}
}

func TestRawSSEVerbatim(t *testing.T) {
	raw := ": OPENROUTER PROCESSING\n\ndata: {\"choices\":[]}\n\ndata: [DONE]\n\n"
	s := New(t, RawSSE(raw))
	got, _ := io.ReadAll(post(t, t.Context(), s, `{}`).Body)
	if string(got) != raw {
		t.Fatalf("got %q", got)
	}
}

func TestExhaustedScript(t *testing.T) {
	s := New(t)
	resp := post(t, t.Context(), s, `{}`)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || !strings.Contains(string(body), NoStepLeft) {
		t.Fatalf("status %d body %s", resp.StatusCode, body)
	}
	if s.Unscripted() != 1 || len(s.Requests()) != 1 {
		t.Fatalf("unscripted %d, requests %d", s.Unscripted(), len(s.Requests()))
	}
}

func TestHandleAfterScript(t *testing.T) {
	s := New(t, Text("scripted"))
	s.Handle(func(req Request) Step { return Text("dynamic " + req.Chat.Model) })
	s.Add(Text("added"))
	var texts []string
	for _, m := range []string{"a", "b", "c"} {
		texts = append(texts, assemble(readSSE(post(t, t.Context(), s, `{"model":"`+m+`"}`).Body).chunks).text)
	}
	want := []string{"scripted", "added", "dynamic c"}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", texts, want)
	}
	if s.Unscripted() != 0 {
		t.Fatal("Handle answered, nothing is unscripted")
	}
}

func TestBlockHoldsTheStream(t *testing.T) {
	release := make(chan struct{})
	s := New(t, Reply(TextChunk("before"), Block(release), TextChunk("after"), FinishChunk("stop")))
	resp := post(t, t.Context(), s, `{}`)
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || !strings.Contains(line, "before") {
		t.Fatalf("first line %q, %v", line, err)
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(br)
		rest <- string(b)
	}()
	select {
	case got := <-rest:
		t.Fatalf("stream went on before release: %q", got)
	default:
	}
	close(release)
	if got := <-rest; !strings.Contains(got, "after") || !strings.Contains(got, "[DONE]") {
		t.Fatalf("after release: %q", got)
	}
}

func TestBlockEndsWhenClientLeaves(t *testing.T) {
	never := make(chan struct{})
	s := New(t, Reply(TextChunk("x"), Block(never), TextChunk("y")), Text("next"))
	ctx, cancel := context.WithCancel(t.Context())
	resp := post(t, ctx, s, `{}`)
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := io.ReadAll(br); err == nil {
		t.Fatal("want a read error after cancel")
	}
	// The server is still usable, and its Close (at cleanup) must not hang
	// on the blocked handler: goleak checks nothing is left.
	if got := assemble(readSSE(post(t, t.Context(), s, `{}`).Body).chunks).text; got != "next" {
		t.Fatalf("next step %q", got)
	}
}

func TestDelayPaces(t *testing.T) {
	s := New(t, Reply(TextChunk("a"), Delay(50*time.Millisecond), TextChunk("b"), FinishChunk("stop")))
	start := time.Now()
	res := readSSE(post(t, t.Context(), s, `{}`).Body)
	if elapsed := time.Since(start); elapsed < 50*time.Millisecond {
		t.Errorf("took %s, want at least the delay", elapsed)
	}
	if assemble(res.chunks).text != "ab" {
		t.Errorf("text %q", assemble(res.chunks).text)
	}
}

func TestDisconnectDropsConnection(t *testing.T) {
	s := New(t, Reply(TextChunk("a"), Disconnect(), TextChunk("b")))
	res := readSSE(post(t, t.Context(), s, `{}`).Body)
	if res.err == nil || res.done {
		t.Fatalf("want a read error, got done=%v err=%v", res.done, res.err)
	}
}

func TestReasoningFields(t *testing.T) {
	s := New(t, Reply(ReasoningChunk("think ", "reasoning"), ReasoningChunk("more", "reasoning_content"), TextChunk("ok"),
		FinishChunk("stop"), UsageChunk(Usage{Prompt: 10, Completion: 5, Cached: 4, Reasoning: 3})))
	res := readSSE(post(t, t.Context(), s, `{}`).Body)
	a := assemble(res.chunks)
	if a.reasoning != "think more" || a.text != "ok" {
		t.Errorf("reasoning %q text %q", a.reasoning, a.text)
	}
	details := a.usage["prompt_tokens_details"].(map[string]any)
	if a.usage["total_tokens"].(float64) != 15 || details["cached_tokens"].(float64) != 4 {
		t.Errorf("usage %v", a.usage)
	}
}

func TestModelsAndUnknownRoutes(t *testing.T) {
	s := New(t)
	resp, err := http.Get(s.URL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Data) != 1 {
		t.Fatalf("models: %v %+v", err, list)
	}
	resp2, err := http.Get(s.URL + "/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusNotFound {
		t.Fatalf("status %d", resp2.StatusCode)
	}
}

// A server that skips decoding keeps the body as it came and answers as
// any other, naming the model it was given.
func TestSkipDecodeKeepsTheBody(t *testing.T) {
	srv := New(t)
	srv.SkipDecode("gpt-bench")
	srv.Add(Text("hello"))
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	resp, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(out), "hello") || !strings.Contains(string(out), `"model":"gpt-bench"`) {
		t.Fatalf("answer: %s", out)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || string(reqs[0].Body) != body || len(reqs[0].Chat.Messages) != 0 {
		t.Fatalf("requests: %+v", reqs)
	}
}
