package loop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/ctxloop/agent/internal/childproc"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

func TestMain(m *testing.M) {
	mcptest.Serve() // this binary started as the MCP test server (mcp_test.go)
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction(childproc.SpawnerFunc),
		// The tokenizer's table loader may still be running in the
		// background when the last test ends.
		goleak.IgnoreAnyFunction("github.com/ctxloop/agent/internal/context/tokens.(*Tokenizer).load"),
	)
}

// harness is a session wired to a scripted server, a real database and real
// tools in a temporary directory.
type harness struct {
	t      testing.TB
	srv    *pt.Server
	store  *storage.Store
	cfg    *config.Config
	dir    string
	data   string
	r      *Runner
	mu     sync.Mutex
	events []message.Event
	sleeps []time.Duration
}

type harnessOpt func(*Options, *config.Config)

func newHarness(t testing.TB, steps ...pt.Step) *harness {
	return newHarnessWith(t, nil, steps...)
}

func newHarnessWith(t testing.TB, opt harnessOpt, steps ...pt.Step) *harness {
	t.Helper()
	h := &harness{t: t, srv: pt.New(t, steps...), dir: t.TempDir(), data: t.TempDir()}
	home := t.TempDir()
	cfg, err := config.Load(config.Flags{Model: "gpt-4.1", BaseURL: h.srv.URL, DataDir: h.data}, h.dir,
		func(k string) string { return map[string]string{"HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	h.cfg = cfg
	seedDataDir(t, h.data) // fixture_test.go: an empty database, migrated once
	h.store, err = storage.Open(context.Background(), h.data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.store.Close() })
	o := Options{
		Store:     h.store,
		Provider:  provider.NewOpenAI(provider.Config{BaseURL: h.srv.URL, APIKey: "sk-test-secret"}),
		Tools:     tools.NewRegistry(),
		Perms:     tools.NewPermissions(nil, nil, true),
		Config:    cfg,
		Dir:       h.dir,
		OutputDir: filepath.Join(h.data, "outputs"),
		Observer:  h.observe,
		Sleep: func(ctx context.Context, d time.Duration) error {
			h.mu.Lock()
			h.sleeps = append(h.sleeps, d)
			h.mu.Unlock()
			return ctx.Err()
		},
	}
	if opt != nil {
		opt(&o, cfg)
	}
	h.r, err = Open(context.Background(), o, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.r.Close() })
	return h
}

func (h *harness) observe(ev message.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, ev)
}

func (h *harness) eventsOf(typ message.EventType) []message.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []message.Event
	for _, ev := range h.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// turn sends text and waits for the turn to end.
func (h *harness) turn(text string) TurnResult {
	h.t.Helper()
	if _, err := h.r.Send(context.Background(), text); err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return h.r.Wait(ctx)
}

// request returns the n-th request's chat messages.
func (h *harness) request(n int) []openai.ChatCompletionMessage {
	h.t.Helper()
	reqs := h.srv.Requests()
	if n >= len(reqs) {
		h.t.Fatalf("request %d of %d", n, len(reqs))
	}
	return reqs[n].Chat.Messages
}

// assertAnswered checks that every tool call of a request has exactly one
// result right after it.
func assertAnswered(t *testing.T, msgs []openai.ChatCompletionMessage) {
	t.Helper()
	for i, m := range msgs {
		if len(m.ToolCalls) == 0 {
			continue
		}
		for k, tc := range m.ToolCalls {
			j := i + 1 + k
			if j >= len(msgs) || msgs[j].Role != openai.ChatMessageRoleTool || msgs[j].ToolCallID != tc.ID {
				t.Fatalf("tool call %s (%s) at message %d has no result right after it", tc.ID, tc.Function.Name, i)
			}
		}
	}
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool && m.Content == "" {
			t.Errorf("empty tool result for %s", m.ToolCallID)
		}
	}
}

func TestTextTurnIsPersisted(t *testing.T) {
	h := newHarness(t, pt.Text("Hello there, friend."))
	res := h.turn("hi")
	if res.Err != nil || res.FinishReason != "stop" || res.Steps != 1 {
		t.Fatalf("turn = %+v", res)
	}
	hist, err := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 || hist[1].Message.Role != message.RoleAssistant || !hist[1].Message.Finished() {
		t.Fatalf("history = %+v", hist)
	}
	var text string
	var kinds []message.PartType
	for _, p := range hist[1].Parts {
		kinds = append(kinds, p.Type)
		if p.Type == message.PartText {
			text += p.Text
		}
	}
	if text != "Hello there, friend." {
		t.Errorf("text = %q", text)
	}
	want := []message.PartType{message.PartStepStart, message.PartText, message.PartStepFinish}
	if strings.Join(partTypes(kinds), ",") != strings.Join(partTypes(want), ",") {
		t.Errorf("parts = %v, want %v", kinds, want)
	}
	var deltas string
	for _, ev := range h.eventsOf(message.EventPartDelta) {
		deltas += ev.Delta
	}
	if deltas != text {
		t.Errorf("observer deltas %q != text %q", deltas, text)
	}
	if s := h.r.Session(); s.Title != "hi" || s.Usage.Input == 0 {
		t.Errorf("session = %+v", s)
	}
	msgs := h.request(0)
	if msgs[0].Role != "system" || msgs[1].Role != "system" || msgs[2].Content != "hi" {
		t.Errorf("request starts %v %v %q", msgs[0].Role, msgs[1].Role, msgs[2].Content)
	}
	if !strings.Contains(msgs[1].Content, h.dir) {
		t.Errorf("dynamic prompt lacks the directory: %q", msgs[1].Content)
	}
	if got := len(h.srv.Requests()[0].Chat.Tools); got != 13 {
		t.Errorf("tools offered = %d, want 13 (the built-in tools, recall, todo_write, todo_read and remember; memory_search only with memories)", got)
	}
}

func partTypes(ts []message.PartType) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

func TestParallelToolCallsRunAndAnswerInOrder(t *testing.T) {
	h := newHarness(t,
		pt.ToolCalls(
			pt.Call{ID: "glob:0", Name: "glob", Args: `{"pattern":"*.txt"}`},
			pt.Call{ID: "call_b", Name: "read", Args: `{"path":"a.txt"}`},
			pt.Call{ID: "call_c", Name: "bash", Args: `{"command":"echo from-bash"}`},
		),
		pt.Text("Done."),
	)
	if err := os.WriteFile(filepath.Join(h.dir, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := h.turn("look around")
	if res.Err != nil || res.FinishReason != "stop" || res.Steps != 2 {
		t.Fatalf("turn = %+v", res)
	}
	msgs := h.request(1)
	assertAnswered(t, msgs)
	var results []openai.ChatCompletionMessage
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool {
			results = append(results, m)
		}
	}
	if len(results) != 3 || results[0].ToolCallID != "glob:0" || results[1].ToolCallID != "call_b" || results[2].ToolCallID != "call_c" {
		t.Fatalf("results out of call order: %+v", results)
	}
	if !strings.Contains(results[0].Content, "a.txt") || !strings.Contains(results[1].Content, "alpha") || !strings.Contains(results[2].Content, "from-bash") {
		t.Errorf("results = %q / %q / %q", results[0].Content, results[1].Content, results[2].Content)
	}
}

// TestFixtureToolCallShapes replays the parallel tool calls of recorded
// providers as the first step of a turn and checks every call is run and
// answered.
func TestFixtureToolCallShapes(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "fixtures", "providers")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("../shared/fixtures absent (%v): recordings not replayed", err)
	}
	for _, name := range []string{
		"crush/openai-gpt-5__parallel_tool_calls__1.sse",
		"crush/openrouter-kimi-k2__parallel_tool_calls__1.sse",
		"crush/zai-glm4.6__parallel_tool_calls__1.sse",
		"synthetic/interleaved-parallel-tools-usage.sse",
	} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join(root, name))
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, pt.RawSSE(string(body)), pt.Text("ok"))
			res := h.turn("go")
			if res.Err != nil {
				t.Fatalf("turn: %v", res.Err)
			}
			msgs := h.request(1)
			assertAnswered(t, msgs)
			calls := 0
			for _, m := range msgs {
				calls += len(m.ToolCalls)
				for _, tc := range m.ToolCalls {
					if !json.Valid([]byte(tc.Function.Arguments)) {
						t.Errorf("arguments of %s not JSON: %q", tc.ID, tc.Function.Arguments)
					}
				}
			}
			if calls < 2 {
				t.Errorf("%d tool calls sent back, want the recording's parallel calls", calls)
			}
		})
	}
}

func TestBadToolCalls(t *testing.T) {
	h := newHarness(t,
		pt.ToolCalls(
			pt.Call{ID: "c1", Name: "frobnicate", Args: `{}`},
			pt.Call{ID: "c2", Name: "read", Args: `{"path": `},
			pt.Call{ID: "c3", Name: "read", Args: `{"path": 42}`},
		),
		pt.Text("sorry"),
	)
	if res := h.turn("do it"); res.Err != nil {
		t.Fatalf("turn: %v", res.Err)
	}
	msgs := h.request(1)
	assertAnswered(t, msgs)
	var outs []string
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool {
			outs = append(outs, m.Content)
		}
		for _, tc := range m.ToolCalls {
			if !json.Valid([]byte(tc.Function.Arguments)) {
				t.Errorf("invalid arguments sent back: %q", tc.Function.Arguments)
			}
		}
	}
	if len(outs) != 3 || !strings.Contains(outs[0], "bash") || !strings.Contains(strings.ToLower(outs[1]), "json") {
		t.Errorf("error results = %q", outs)
	}
}

func TestEmptyStepEndsTurnWithNote(t *testing.T) {
	h := newHarness(t, pt.Reply(pt.FinishChunk("stop")))
	res := h.turn("hello?")
	if res.FinishReason != FinishEmpty {
		t.Fatalf("turn = %+v", res)
	}
	if len(h.eventsOf(message.EventError)) == 0 {
		t.Error("no visible note for an empty step")
	}
}

func TestQueueCoalescing(t *testing.T) {
	tests := []struct {
		name  string
		texts []string
		want  string
	}{
		{"one", []string{"use tabs"}, "use tabs"},
		{"two", []string{"use tabs", "and test it"}, "First: use tabs\n\nAlso: and test it"},
		{"three", []string{"a", "b", "c"}, "[1]: a\n\n[2]: b\n\n[3]: c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			h := newHarness(t,
				pt.Reply(pt.TextChunk("working"), pt.Block(release), pt.FinishChunk("stop"), pt.AutoUsageChunk()),
				pt.Text("noted"),
			)
			if _, err := h.r.Send(context.Background(), "start"); err != nil {
				t.Fatal(err)
			}
			if err := h.srv.WaitRequests(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			for _, text := range tt.texts {
				queued, err := h.r.Send(context.Background(), text)
				if err != nil || !queued {
					t.Fatalf("send while busy: queued=%v err=%v", queued, err)
				}
			}
			q, _ := h.r.Queue(context.Background())
			if len(q) != len(tt.texts) {
				t.Fatalf("queue has %d, want %d", len(q), len(tt.texts))
			}
			close(release)
			res := h.r.Wait(context.Background())
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			msgs := h.request(1)
			last := msgs[len(msgs)-1]
			if last.Role != "user" || last.Content != tt.want {
				t.Errorf("injected %q, want %q", last.Content, tt.want)
			}
			if q, _ := h.r.Queue(context.Background()); len(q) != 0 {
				t.Errorf("queue not drained: %v", q)
			}
		})
	}
}

func TestQueueInjectedBetweenSteps(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t,
		pt.Reply(append(pt.ToolCallChunks(0, "c1", "bash", `{"command":"echo hi"}`, 2),
			pt.Block(release), pt.FinishChunk("tool_calls"), pt.AutoUsageChunk())...),
		pt.Text("ok, tabs"),
	)
	h.r.Send(context.Background(), "start")
	h.srv.WaitRequests(context.Background(), 1)
	h.r.Send(context.Background(), "use tabs")
	close(release)
	if res := h.r.Wait(context.Background()); res.Err != nil || res.Steps != 2 {
		t.Fatalf("turn = %+v", res)
	}
	msgs := h.request(1)
	assertAnswered(t, msgs)
	if last := msgs[len(msgs)-1]; last.Content != "use tabs" {
		t.Errorf("second step's last message = %q, want the queued guidance", last.Content)
	}
}

func TestCancelDuringStreamKeepsText(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := newHarness(t, pt.Reply(pt.TextChunk("partial answer"), pt.Block(release), pt.TextChunk(" never")))
	h.r.Send(context.Background(), "go")
	h.srv.WaitRequests(context.Background(), 1)
	waitFor(t, func() bool { return len(h.eventsOf(message.EventPartDelta)) > 0 })
	h.r.Send(context.Background(), "queued one")
	back, err := h.r.Cancel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 1 || back[0].Text != "queued one" {
		t.Errorf("queued messages handed back = %+v", back)
	}
	res := h.r.Wait(context.Background())
	if res.FinishReason != FinishCancelled {
		t.Fatalf("turn = %+v", res)
	}
	hist, _ := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	last := hist[len(hist)-1]
	if got := joinText(last.Parts, message.PartText); got != "partial answer" {
		t.Errorf("kept text = %q", got)
	}
	if !last.Message.Finished() || last.Message.Error == "" {
		t.Errorf("cancelled message = %+v", last.Message)
	}
}

func TestCancelDuringToolKillsProcess(t *testing.T) {
	h := newHarness(t, pt.ToolCall("c1", "bash", `{"command":"echo $$ > pid; sleep 100"}`))
	h.r.Send(context.Background(), "sleep")
	pidFile := filepath.Join(h.dir, "pid")
	var pid int
	waitFor(t, func() bool {
		data, err := os.ReadFile(pidFile)
		if err != nil || !strings.HasSuffix(string(data), "\n") {
			return false
		}
		_, err = fmtSscan(strings.TrimSpace(string(data)), &pid)
		return err == nil
	})
	start := time.Now()
	h.r.Cancel(context.Background())
	res := h.r.Wait(context.Background())
	if res.FinishReason != FinishCancelled {
		t.Fatalf("turn = %+v", res)
	}
	t.Logf("idle %v after cancel", time.Since(start))
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("bash (pid %d) still alive after cancel", pid)
	}
	hist, _ := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	tool := findTool(hist, "c1")
	if tool == nil || tool.Status != message.ToolError || tool.Output != message.InterruptedOutput {
		t.Errorf("tool part after cancel = %+v", tool)
	}
	// The next request answers the interrupted call.
	h.srv.Add(pt.Text("ok"))
	if res := h.turn("again"); res.Err != nil {
		t.Fatal(res.Err)
	}
	assertAnswered(t, h.request(1))
}

func findTool(hist []message.Entry, callID string) *message.ToolState {
	for _, e := range hist {
		for _, p := range e.Parts {
			if p.Tool != nil && p.Tool.CallID == callID {
				return p.Tool
			}
		}
	}
	return nil
}

func TestRetries(t *testing.T) {
	t.Run("429 honours Retry-After", func(t *testing.T) {
		h := newHarness(t, pt.HTTPError(429, map[string]string{"Retry-After": "7"}, `{"error":{"message":"slow down"}}`), pt.Text("ok"))
		if res := h.turn("hi"); res.Err != nil {
			t.Fatal(res.Err)
		}
		if len(h.sleeps) != 1 || h.sleeps[0] != 7*time.Second {
			t.Errorf("slept %v, want [7s]", h.sleeps)
		}
		ev := h.eventsOf(message.EventRetrying)
		if len(ev) != 1 || ev[0].Retry.Attempt != 2 || ev[0].Retry.Delay != 7*time.Second {
			t.Errorf("retry events = %+v", ev)
		}
	})
	t.Run("broken stream retried and superseded", func(t *testing.T) {
		h := newHarness(t, pt.CutShort(pt.TextChunk("half an ans")), pt.Text("a whole answer"))
		if res := h.turn("hi"); res.Err != nil {
			t.Fatal(res.Err)
		}
		msgs := h.request(1)
		for _, m := range msgs {
			if strings.Contains(m.Content, "half an ans") {
				t.Errorf("a superseded attempt was sent back: %q", m.Content)
			}
		}
		h.srv.Add(pt.Text("second"))
		h.turn("more")
		msgs = h.request(2)
		for _, m := range msgs {
			if strings.Contains(m.Content, "half an ans") {
				t.Errorf("a superseded attempt was sent back: %q", m.Content)
			}
		}
	})
	t.Run("401 not retried", func(t *testing.T) {
		h := newHarness(t, pt.HTTPError(401, nil, `{"error":{"message":"Incorrect API key provided"}}`))
		res := h.turn("hi")
		if res.Err == nil || !strings.Contains(res.Err.Error(), "OPENAI_API_KEY") {
			t.Fatalf("err = %v, want a message naming OPENAI_API_KEY", res.Err)
		}
		if len(h.sleeps) != 0 || len(h.srv.Requests()) != 1 {
			t.Errorf("retried a 401: sleeps %v, requests %d", h.sleeps, len(h.srv.Requests()))
		}
		if strings.Contains(res.Err.Error(), "sk-test-secret") {
			t.Error("the key leaked into the error")
		}
	})
	t.Run("gives up after the attempts", func(t *testing.T) {
		h := newHarnessWith(t, func(o *Options, _ *config.Config) {
			o.Retry = RetryPolicy{Initial: time.Second, Max: time.Minute, Attempts: 3}
		},
			pt.HTTPError(503, nil, "upstream down"), pt.HTTPError(503, nil, "upstream down"), pt.HTTPError(503, nil, "upstream down"))
		res := h.turn("hi")
		if res.Err == nil || len(h.srv.Requests()) != 3 || len(h.sleeps) != 2 {
			t.Fatalf("err %v, %d requests, sleeps %v", res.Err, len(h.srv.Requests()), h.sleeps)
		}
		if h.sleeps[1] < h.sleeps[0] {
			t.Errorf("backoff did not grow: %v", h.sleeps)
		}
	})
}

func TestDoomLoopStopsHeadless(t *testing.T) {
	call := pt.ToolCall("c", "bash", `{"command":"echo same"}`)
	h := newHarness(t, call, call, call, pt.Text("never asked"))
	res := h.turn("loop")
	if res.FinishReason != FinishDoomLoop || res.Err == nil || !strings.Contains(res.Err.Error(), "bash") {
		t.Fatalf("turn = %+v", res)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	hist, _ := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	runs := 0
	for _, e := range hist {
		for _, p := range e.Parts {
			if p.Tool != nil && p.Tool.Status == message.ToolCompleted {
				runs++
			}
		}
	}
	if runs != 2 {
		t.Errorf("bash ran %d times, want 2 (the third is refused)", runs)
	}
}

type doomAnswer struct{ reply DoomReply }

func (d doomAnswer) AskDoomLoop(context.Context, string, string) (DoomReply, error) {
	return d.reply, nil
}

func TestDoomLoopContinueWhenAsked(t *testing.T) {
	call := pt.ToolCall("c", "bash", `{"command":"echo same"}`)
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.Doom = doomAnswer{DoomContinue} },
		call, call, call, pt.Text("done"))
	if res := h.turn("loop"); res.Err != nil || res.FinishReason != "stop" {
		t.Fatalf("turn = %+v", res)
	}
}

func TestMaxSteps(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.MaxSteps = 1 },
		pt.ToolCall("c", "bash", `{"command":"echo one"}`))
	res := h.turn("go")
	if res.FinishReason != FinishMaxSteps || res.Err != nil || res.Steps != 1 {
		t.Fatalf("turn = %+v", res)
	}
	hist, _ := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	if tool := findTool(hist, "c"); tool == nil || tool.Status != message.ToolCompleted {
		t.Errorf("the last step's tools must run: %+v", tool)
	}
}

func TestRecoveryAfterCrash(t *testing.T) {
	// A crash in the middle of a step: an open assistant message with a
	// running tool and half-streamed text, written straight to the store.
	dir, data := t.TempDir(), t.TempDir()
	ctx := context.Background()
	st, err := storage.Open(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	sess := &message.Session{Dir: dir, Model: "gpt-4.1"}
	st.CreateSession(ctx, sess)
	u := &message.Message{SessionID: sess.ID, Role: message.RoleUser}
	st.CreateMessage(ctx, u)
	st.UpsertPart(ctx, &message.Part{SessionID: sess.ID, MessageID: u.ID, Type: message.PartText, Text: "run it"})
	a := &message.Message{SessionID: sess.ID, Role: message.RoleAssistant}
	st.CreateMessage(ctx, a)
	ts, _ := st.NewTextStream(ctx, &message.Part{SessionID: sess.ID, MessageID: a.ID, Type: message.PartText})
	ts.Append("I will run")
	ts.Flush(ctx)
	st.UpsertPart(ctx, &message.Part{SessionID: sess.ID, MessageID: a.ID, Type: message.PartTool,
		Tool: &message.ToolState{CallID: "call_x", Name: "bash", Status: message.ToolRunning, Input: `{"command":"make"}`}})
	st.Close()

	srv := pt.New(t, pt.Text("recovered"))
	st, err = storage.Open(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	home := t.TempDir()
	cfg, _ := config.Load(config.Flags{BaseURL: srv.URL, DataDir: data}, dir, func(k string) string { return map[string]string{"HOME": home}[k] })
	r, err := Open(ctx, Options{Store: st, Provider: provider.NewOpenAI(provider.Config{BaseURL: srv.URL}),
		Tools: tools.NewRegistry(), Perms: tools.NewPermissions(nil, nil, true), Config: cfg, Dir: dir}, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Send(ctx, "continue")
	if res := r.Wait(ctx); res.Err != nil {
		t.Fatal(res.Err)
	}
	msgs := srv.Requests()[0].Chat.Messages
	assertAnswered(t, msgs)
	found := false
	for _, m := range msgs {
		if m.Role == "tool" && m.ToolCallID == "call_x" && m.Content == message.InterruptedOutput {
			found = true
		}
		if m.Role == "assistant" && m.Content == "I will run" {
			found = found || false
		}
	}
	if !found {
		t.Errorf("the crashed call has no interrupted result: %+v", msgs)
	}
}

func TestSecondOwnerIsRefused(t *testing.T) {
	h := newHarness(t, pt.Text("hi"))
	_, err := Open(context.Background(), h.r.opt, h.r.Session().ID)
	if err == nil || !strings.Contains(err.Error(), "busy") && !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second Open of a driven session: err = %v", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestResumeKeepsTheSessionModel(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, c *config.Config) { c.Model = "first-model" }, pt.Text("one"), pt.Text("two"), pt.Text("three"))
	h.turn("hi")
	id := h.r.Session().ID
	h.r.Close()
	home := t.TempDir()
	env := func(k string) string { return map[string]string{"HOME": home}[k] }

	// A model from defaults or a config file does not switch a resumed
	// session.
	cfg, _ := config.Load(config.Flags{BaseURL: h.srv.URL, DataDir: h.data}, h.dir, env)
	opt := h.r.opt
	opt.Config = cfg
	r, err := Open(context.Background(), opt, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Model() != "first-model" {
		t.Errorf("resumed with %q, want the session's first-model", r.Model())
	}
	r.Send(context.Background(), "again")
	r.Wait(context.Background())
	if got := h.srv.Requests()[1].Chat.Model; got != "first-model" {
		t.Errorf("request model %q", got)
	}
	r.Close()

	// --model does, and says so in the session.
	cfg, _ = config.Load(config.Flags{Model: "second-model", BaseURL: h.srv.URL, DataDir: h.data}, h.dir, env)
	opt.Config = cfg
	r, err = Open(context.Background(), opt, id)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if s, _ := h.store.GetSession(context.Background(), id); r.Model() != "second-model" || s.Model != "second-model" {
		t.Errorf("--model on resume: runner %q, stored %q", r.Model(), s.Model)
	}
}

// TestReadingMatchesStoredReading checks that the running session's
// calculator and the one rebuilt from the database by the read-only
// commands agree, including the calibration learnt along the way and text
// added after the last call.
func TestReadingMatchesStoredReading(t *testing.T) {
	out := `{"command":"seq 1 600"}`
	h := newHarnessWith(t, func(o *Options, _ *config.Config) { o.MaxSteps = 2 },
		pt.ToolCall("c1", "bash", out), pt.ToolCall("c2", "bash", out),
		pt.ToolCall("c3", "bash", out), pt.ToolCall("c4", "bash", out),
	)
	h.turn("first")  // two tool steps, stopped by the step limit
	h.turn("second") // the same: tool outputs are new since the last call
	live := h.r.Reading()
	if live.Calibration == 1 || live.NewEstimate == 0 {
		t.Fatalf("the test needs a learnt calibration and new text: %+v", live)
	}
	read, _, err := StoredReading(context.Background(), h.store, h.cfg, h.r.opt.Tools, h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	if read.Total != live.Total || read.NewEstimate != live.NewEstimate || read.Calibration != live.Calibration {
		t.Errorf("read-only snapshot %d (new %d, cal %.3f) != live %d (new %d, cal %.3f)",
			read.Total, read.NewEstimate, read.Calibration, live.Total, live.NewEstimate, live.Calibration)
	}
}
