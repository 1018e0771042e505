package task

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// parent is a session offering the task tool, wired to a scripted server
// (which the parent and its children share, in request order), a real
// database and a directory with one file.
type parent struct {
	t     *testing.T
	srv   *pt.Server
	store *storage.Store
	cfg   *config.Config
	dir   string
	r     *loop.Runner

	mu     sync.Mutex
	events []message.Event
}

func newParent(t *testing.T, mod func(*loop.Options), steps ...pt.Step) *parent {
	t.Helper()
	p := &parent{t: t, srv: pt.New(t, steps...), dir: t.TempDir()}
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(p.dir, "hay.go"), []byte("package hay\n\nvar needle = 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Flags{Model: "gpt-4.1", BaseURL: p.srv.URL, DataDir: data}, p.dir,
		func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] })
	if err != nil {
		t.Fatal(err)
	}
	p.cfg = cfg
	if p.store, err = storage.Open(context.Background(), data); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.store.Close() })
	opt := loop.Options{
		Store:        p.store,
		Provider:     provider.NewOpenAI(provider.Config{BaseURL: p.srv.URL, APIKey: "sk-test"}),
		Tools:        tools.NewRegistry(),
		Perms:        tools.NewPermissions(nil, nil, false),
		Config:       cfg,
		Dir:          p.dir,
		OutputDir:    filepath.Join(data, "outputs"),
		Observer:     p.observe,
		SessionTools: SessionTools(cfg.Task),
		Sleep:        func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	}
	if mod != nil {
		mod(&opt)
	}
	if p.r, err = loop.Open(context.Background(), opt, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.r.Close() })
	return p
}

func (p *parent) observe(ev message.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, ev)
}

// turn sends text and waits for the turn to end.
func (p *parent) turn(text string) loop.TurnResult {
	p.t.Helper()
	if _, err := p.r.Send(context.Background(), text); err != nil {
		p.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return p.r.Wait(ctx)
}

// request returns the n-th request the server received.
func (p *parent) request(n int) openai.ChatCompletionRequest {
	p.t.Helper()
	reqs := p.srv.Requests()
	if n >= len(reqs) {
		p.t.Fatalf("request %d of %d", n, len(reqs))
	}
	return reqs[n].Chat
}

// taskPart returns the parent's task tool part.
func (p *parent) taskPart() *message.ToolState {
	p.t.Helper()
	for _, e := range p.r.History() {
		for _, part := range e.Parts {
			if part.Tool != nil && part.Tool.Name == Name {
				return part.Tool
			}
		}
	}
	p.t.Fatal("no task call in the parent's history")
	return nil
}

// child returns the one child session of the parent.
func (p *parent) child() message.Session {
	p.t.Helper()
	kids, err := p.store.ChildSessions(context.Background(), p.r.Session().ID)
	if err != nil || len(kids) != 1 {
		p.t.Fatalf("child sessions = %v, %v; want one", kids, err)
	}
	return kids[0]
}

func taskCall(id, description, prompt string) pt.Step {
	in, _ := json.Marshal(map[string]string{"description": description, "prompt": prompt})
	return pt.ToolCall(id, Name, string(in))
}

// stepUsage sums the step usage of a history.
func stepUsage(h []message.Entry) (u message.Usage) {
	for _, e := range h {
		for _, part := range e.Parts {
			if part.Step != nil {
				u = u.Add(part.Step.Usage)
			}
		}
	}
	return u
}

func toolNames(req openai.ChatCompletionRequest) []string {
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Function.Name)
	}
	return names
}

// TestTaskReturnsOnlyTheAnswer: a task call runs a child session against
// the scripted server with its own context, its own system prompt and the
// read-only tools; the parent's next request holds the child's answer and
// nothing else of the child's work; the child's spending joins the
// parent's totals but not its context.
func TestTaskReturnsOnlyTheAnswer(t *testing.T) {
	const answer = "The needle is 42, in hay.go line 3."
	p := newParent(t, nil,
		taskCall("call_task", "find the needle", "Find the value of needle in this repository."),
		// The child: some thinking out loud and a grep, reported as a big
		// prompt, then its answer.
		pt.Reply(append(append([]pt.Chunk{pt.TextChunk("Let me search for it.")},
			pt.ToolCallChunks(0, "call_grep", "grep", `{"pattern":"needle"}`, 2)...),
			pt.FinishChunk("tool_calls"), pt.UsageChunk(pt.Usage{Prompt: 60000, Completion: 40}))...),
		pt.Reply(pt.TextChunk(answer), pt.FinishChunk("stop"), pt.UsageChunk(pt.Usage{Prompt: 61000, Completion: 20})),
		pt.Text("The needle is 42."),
	)
	res := p.turn("PARENT-ONLY: where is the needle?")
	if res.Err != nil || res.FinishReason != "stop" {
		t.Fatalf("turn = %+v", res)
	}
	if n := len(p.srv.Requests()); n != 4 {
		t.Fatalf("%d requests, want 4 (parent, child, child, parent)", n)
	}

	// The child's first request: its own system prompt and context, the
	// read-only tools and recall, never task or a write tool.
	child := p.request(1)
	if !strings.Contains(child.Messages[0].Content, "You are a subagent") {
		t.Errorf("child's system prompt: %.80q", child.Messages[0].Content)
	}
	for _, m := range child.Messages {
		if strings.Contains(m.Content, "PARENT-ONLY") {
			t.Errorf("the parent's conversation reached the child: %q", m.Content)
		}
	}
	if last := child.Messages[len(child.Messages)-1]; last.Role != "user" || last.Content != "Find the value of needle in this repository." {
		t.Errorf("child's prompt = %+v", last)
	}
	if got, want := toolNames(child), []string{"read", "grep", "glob", "ls", "recall"}; !slices.Equal(got, want) {
		t.Errorf("child's tools = %v, want %v", got, want)
	}
	if got := toolNames(p.request(0)); !slices.Contains(got, Name) {
		t.Errorf("parent's tools = %v, want task among them", got)
	}

	// The parent's next request: the task call and its answer, nothing of
	// the child's calls or intermediate text.
	next := p.request(3)
	var result string
	for _, m := range next.Messages {
		if m.Role == "tool" && m.ToolCallID == "call_task" {
			result = m.Content
		}
		for _, tc := range m.ToolCalls {
			if tc.Function.Name != Name {
				t.Errorf("the child's %s call reached the parent", tc.Function.Name)
			}
		}
		if strings.Contains(m.Content, "Let me search") || strings.Contains(m.Content, "var needle") {
			t.Errorf("the child's work reached the parent: %q", m.Content)
		}
	}
	kid := p.child()
	if !strings.HasPrefix(result, answer+"\n\n[subagent session "+kid.ID) {
		t.Errorf("task result = %q, want the answer and a footer naming %s", result, kid.ID)
	}
	if kid.Title != "find the needle" || kid.ParentID != p.r.Session().ID || kid.Dir != p.dir {
		t.Errorf("child session = %+v", kid)
	}

	// The card's data.
	st := p.taskPart()
	if st.Status != message.ToolCompleted || st.Title != "task: find the needle" || st.Metadata["session_id"] != kid.ID || st.Metadata["steps"] != 2 ||
		st.Metadata[message.WorkSummaryKey] != true {
		t.Errorf("task part = %+v", st)
	}

	// The child's spending joins the parent's totals...
	own := stepUsage(p.r.History())
	sess := p.r.Session()
	if want := own.Add(kid.Usage); sess.Usage != want {
		t.Errorf("parent usage = %+v, want its own %+v + the child's %+v", sess.Usage, own, kid.Usage)
	}
	if kid.Usage.Input != 121000 {
		t.Errorf("child usage = %+v", kid.Usage)
	}
	stored, _ := p.store.GetSession(context.Background(), sess.ID)
	if stored.Usage != sess.Usage || math.Abs(stored.CostUSD-sess.CostUSD) > 1e-12 {
		t.Errorf("stored totals %+v $%v, in memory %+v $%v", stored.Usage, stored.CostUSD, sess.Usage, sess.CostUSD)
	}
	if kid.CostUSD < 0.24 || math.Abs(sess.CostUSD-kid.CostUSD-costOf(own)) > 1e-9 {
		t.Errorf("parent cost $%v, child $%v, own steps $%v", sess.CostUSD, kid.CostUSD, costOf(own))
	}
	// ...but not its context: the child's 60K-token prompts are not in
	// the parent's calculator.
	if snap := p.r.Reading(); snap.Total > 30000 {
		t.Errorf("parent's context total = %d, charged with the child's tokens", snap.Total)
	}

	// Child sessions stay out of the session list.
	list, err := p.store.ListSessions(context.Background(), p.dir)
	if err != nil || len(list) != 1 || list[0].ID != sess.ID {
		t.Errorf("sessions listed = %v, %v; want the parent only", list, err)
	}
}

// costOf prices usage at gpt-4.1's catalog price.
func costOf(u message.Usage) float64 {
	return float64(u.Input-u.CachedInput)*2/1e6 + float64(u.CachedInput)*0.5/1e6 + float64(u.Output)*8/1e6
}

// TestTaskProgress: the child's calls and step count stream into the
// parent's tool call while it runs.
func TestTaskProgress(t *testing.T) {
	release := make(chan struct{})
	p := newParent(t, nil,
		taskCall("call_task", "find it", "Find needle."),
		pt.ToolCall("call_grep", "grep", `{"pattern":"needle"}`),
		pt.Reply(pt.Block(release), pt.TextChunk("found"), pt.FinishChunk("stop"), pt.AutoUsageChunk()),
		pt.Text("ok"),
	)
	if _, err := p.r.Send(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	var progress string
	for !strings.Contains(progress, "grep") || !strings.Contains(progress, "step 2") {
		if time.Now().After(deadline) {
			close(release)
			t.Fatalf("progress = %q, want the child's grep and its step", progress)
		}
		time.Sleep(10 * time.Millisecond)
		p.mu.Lock()
		for _, ev := range p.events {
			if ev.Part != nil && ev.Part.Tool != nil && ev.Part.Tool.Name == Name && ev.Part.Tool.Progress != "" {
				progress = ev.Part.Tool.Progress
			}
		}
		p.mu.Unlock()
	}
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if res := p.r.Wait(ctx); res.Err != nil {
		t.Fatal(res.Err)
	}
	if st := p.taskPart(); st.Progress != "" || !strings.HasPrefix(st.Output, "found") {
		t.Errorf("task part after the run = %+v", st)
	}
}

// TestTaskCancel: cancelling the parent's turn while the child streams
// cancels the child promptly, closes it (its lease is free) and keeps what
// the child spent.
func TestTaskCancel(t *testing.T) {
	p := newParent(t, nil,
		taskCall("call_task", "hang", "Wait forever."),
		pt.Hang(),
	)
	if _, err := p.r.Send(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.srv.WaitRequests(ctx, 2); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := p.r.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := p.r.Wait(ctx)
	if took := time.Since(start); took > time.Second {
		t.Errorf("cancel took %v", took)
	}
	if res.FinishReason != loop.FinishCancelled {
		t.Errorf("turn = %+v, want cancelled", res)
	}
	st := p.taskPart()
	kid := p.child()
	// The task returned in time (not abandoned by the registry): its
	// result is kept under the interrupted note.
	if st.Status != message.ToolError || !strings.HasPrefix(st.Output, "The subagent was interrupted.") ||
		!strings.HasSuffix(st.Output, message.InterruptedOutput) || st.Metadata["session_id"] != kid.ID {
		t.Errorf("task part = %+v, want the subagent's interrupted result", st)
	}
	// The child is closed: its lease is free.
	lease, err := p.store.AcquireLease(context.Background(), kid.ID)
	if err != nil {
		t.Fatalf("child session still held: %v", err)
	}
	lease.Release()
}

// TestTaskChildCannotRecurseOrWrite: the child is not offered task or the
// write tools, and a call to them fails without running.
func TestTaskChildCannotRecurseOrWrite(t *testing.T) {
	p := newParent(t, func(o *loop.Options) { o.Perms = tools.NewPermissions(nil, nil, true) }, // --yes
		taskCall("call_task", "try everything", "Write a file."),
		pt.ToolCalls(
			pt.Call{ID: "c1", Name: Name, Args: `{"description":"deeper","prompt":"again"}`},
			pt.Call{ID: "c2", Name: "write", Args: `{"path":"out.txt","content":"x"}`},
			pt.Call{ID: "c3", Name: "bash", Args: `{"command":"touch bashed"}`},
		),
		pt.Text("I could not write."),
		pt.Text("ok"),
	)
	if res := p.turn("go"); res.Err != nil {
		t.Fatal(res.Err)
	}
	for _, name := range []string{"out.txt", "bashed"} {
		if _, err := os.Stat(filepath.Join(p.dir, name)); !os.IsNotExist(err) {
			t.Errorf("the child made %s: %v", name, err)
		}
	}
	h, err := p.store.LoadHistory(context.Background(), p.child().ID)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, e := range h {
		for _, part := range e.Parts {
			if part.Tool == nil {
				continue
			}
			calls++
			if part.Tool.Status != message.ToolError || !strings.Contains(part.Tool.Output, "unknown tool") {
				t.Errorf("child's %s call: %s %q", part.Tool.Name, part.Tool.Status, part.Tool.Output)
			}
		}
	}
	if calls != 3 {
		t.Errorf("%d child calls, want 3", calls)
	}
	kids, _ := p.store.ChildSessions(context.Background(), p.child().ID)
	if len(kids) != 0 {
		t.Errorf("the child started %d sessions", len(kids))
	}
}

// TestTaskWriteToolsAskTheParent: a child configured with write tools
// goes through the parent's permissions: headless without --yes the write
// is denied, and the child says so in its answer.
func TestTaskWriteToolsAskTheParent(t *testing.T) {
	p := newParent(t, func(o *loop.Options) {
		o.SessionTools = SessionTools(config.Task{Tools: []string{"read", "write"}})
	},
		taskCall("call_task", "write it", "Write out.txt."),
		pt.ToolCall("c1", "write", `{"path":"out.txt","content":"x"}`),
		pt.Text("Denied."),
		pt.Text("ok"),
	)
	if New(config.Task{Tools: []string{"read", "write"}}).ReadOnly() {
		t.Error("a task with write is read-only")
	}
	if res := p.turn("go"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "out.txt")); !os.IsNotExist(err) {
		t.Errorf("the child wrote without approval: %v", err)
	}
	if got := toolNames(p.request(1)); !slices.Equal(got, []string{"read", "write", "recall"}) {
		t.Errorf("child's tools = %v", got)
	}
	h, _ := p.store.LoadHistory(context.Background(), p.child().ID)
	denied := false
	for _, e := range h {
		for _, part := range e.Parts {
			if part.Tool != nil && strings.Contains(part.Tool.Output, "permission denied") {
				denied = true
			}
		}
	}
	if !denied {
		t.Error("the child's write was not denied")
	}
}

// TestTaskBudget: a parent's spending cap holds its children: a child
// whose first request would pass what is left is not sent, its task fails,
// and the parent stops at the cap.
func TestTaskBudget(t *testing.T) {
	p := newParent(t, func(o *loop.Options) {
		o.MaxCostUSD = 0.2102
		// A request reserves up to 1000 tokens of output: $0.008.
		info, _ := o.Config.ModelInfo("gpt-4.1")
		info.MaxOutput = 1000
		o.Config.Models["gpt-4.1"] = info
	},
		// 100K prompt tokens at $2/M: $0.2 of the $0.2102.
		pt.Reply(append(pt.ToolCallChunks(0, "call_task", Name, `{"description":"d","prompt":"p"}`, 1),
			pt.FinishChunk("tool_calls"), pt.UsageChunk(pt.Usage{Prompt: 100000, Completion: 10}))...),
	)
	res := p.turn("go")
	if res.FinishReason != loop.FinishBudget {
		t.Errorf("turn = %+v, want stopped by the budget", res)
	}
	if n := len(p.srv.Requests()); n != 1 {
		t.Errorf("%d requests, want the parent's first only", n)
	}
	st := p.taskPart()
	if st.Status != message.ToolError || !strings.Contains(st.Output, "of its $0.21 budget, with $0.00 reserved") {
		t.Errorf("task part = %s %q, want a budget error", st.Status, st.Output)
	}
}

// TestTaskMaxSteps: a child that reaches its step limit returns an error
// with what it had.
func TestTaskMaxSteps(t *testing.T) {
	p := newParent(t, func(o *loop.Options) {
		o.SessionTools = SessionTools(config.Task{MaxSteps: 1})
	},
		taskCall("call_task", "long", "Look around."),
		pt.Reply(append([]pt.Chunk{pt.TextChunk("Half way: hay.go exists.")},
			append(pt.ToolCallChunks(0, "c1", "ls", `{}`, 1), pt.FinishChunk("tool_calls"), pt.AutoUsageChunk())...)...),
		pt.Text("ok"),
	)
	if res := p.turn("go"); res.Err != nil {
		t.Fatal(res.Err)
	}
	st := p.taskPart()
	if st.Status != message.ToolError || !strings.Contains(st.Output, "limit of 1 steps") || !strings.Contains(st.Output, "Half way: hay.go exists.") {
		t.Errorf("task part = %s %q", st.Status, st.Output)
	}
}

// TestTaskOutsideASession: the tool needs its parent session.
func TestTaskOutsideASession(t *testing.T) {
	res, err := New(config.Task{}).Run(context.Background(), &tools.Env{}, tools.Call{Name: Name, Input: []byte(`{"description":"d","prompt":"p"}`)})
	if err != nil || !res.IsError || !strings.Contains(res.Output, "inside a session") {
		t.Errorf("Run = %+v, %v", res, err)
	}
}

// stopper is the user answering "deny and stop the turn", and counting
// the questions.
type stopper struct {
	mu    sync.Mutex
	asked []string
}

func (s *stopper) Ask(ctx context.Context, req tools.Request) (tools.Reply, error) {
	a, err := s.AskAnswer(ctx, req)
	return a.Reply, err
}

func (s *stopper) AskAnswer(_ context.Context, req tools.Request) (tools.Answer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, req.Title+" · "+req.From)
	return tools.Answer{Reply: tools.Deny, StopTurn: true}, nil
}

// TestTaskChildAsksTheParentsAsker: a child's write asks the parent's
// asker (the chat's dialog); "deny and stop the turn" there ends the
// child's turn and the parent's, with no further request.
func TestTaskChildAsksTheParentsAsker(t *testing.T) {
	asker := &stopper{}
	p := newParent(t, func(o *loop.Options) {
		o.Perms = tools.NewPermissions(nil, asker, false)
		o.SessionTools = SessionTools(config.Task{Tools: []string{"read", "write"}})
	},
		taskCall("call_task", "write it", "Write out.txt."),
		pt.ToolCall("c1", "write", `{"path":"out.txt","content":"x"}`),
	)
	res := p.turn("go")
	if res.FinishReason != loop.FinishStopped {
		t.Errorf("parent's turn = %+v, want stopped", res)
	}
	if n := len(p.srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2 (the parent's, the child's)", n)
	}
	if len(asker.asked) != 1 || !strings.Contains(asker.asked[0], "out.txt") || !strings.Contains(asker.asked[0], "· the subagent “write it”") {
		t.Errorf("asked %q, want the child's write, from the subagent", asker.asked)
	}
	if st := p.taskPart(); st.Status != message.ToolError || !strings.Contains(st.Output, "stopped the subagent's work") {
		t.Errorf("task part = %s %q", st.Status, st.Output)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "out.txt")); !os.IsNotExist(err) {
		t.Errorf("written despite the denial: %v", err)
	}
}

// TestTaskParallelChildrenShareOneCap: six task calls of one step, two at
// most at once (task.max_parallel), reserve from the parent's one ledger:
// the children that cannot reserve send nothing, and what the session and
// its children spent stays within the cap.
func TestTaskParallelChildrenShareOneCap(t *testing.T) {
	var calls []pt.Call
	for i := range 6 {
		calls = append(calls, pt.Call{ID: fmt.Sprintf("call_%d", i), Name: Name, Args: fmt.Sprintf(`{"description":"d%d","prompt":"p%d"}`, i, i)})
	}
	first := pt.ToolCalls(calls...)
	first.Chunks[len(first.Chunks)-1] = pt.UsageChunk(pt.Usage{Prompt: 1000, Completion: 100}) // $0.0028
	p := newParent(t, func(o *loop.Options) {
		o.MaxCostUSD = 0.04
		info, _ := o.Config.ModelInfo("gpt-4.1")
		info.MaxOutput = 1000 // $0.008 of output reserved a request
		o.Config.Models["gpt-4.1"] = info
		o.SessionTools = SessionTools(config.Task{MaxParallel: 2})
	}, first)
	p.srv.Handle(func(pt.Request) pt.Step { // a child: $0.009
		return pt.Reply(pt.Delay(30*time.Millisecond), pt.TextChunk("ok"), pt.FinishChunk("stop"),
			pt.UsageChunk(pt.Usage{Prompt: 500, Completion: 1000}))
	})
	res := p.turn("go")
	if res.FinishReason != loop.FinishBudget {
		t.Fatalf("turn = %+v, want stopped by the budget", res)
	}
	answered := 0
	for _, e := range p.r.History() {
		for _, part := range e.Parts {
			if part.Tool != nil && part.Tool.Status == message.ToolCompleted {
				answered++
			}
		}
	}
	if n := len(p.srv.Requests()); answered == 0 || answered == 6 || n != 1+answered {
		t.Errorf("%d children answered, %d requests: want some refused, and no request of theirs", answered, n)
	}
	if m := p.srv.MaxInFlight(); m > 2 {
		t.Errorf("%d requests at once, want 2 at most", m)
	}
	if cost := p.r.Session().CostUSD; cost > 0.04 {
		t.Errorf("the session cost $%.4f, past its $0.04 cap", cost)
	}
}
