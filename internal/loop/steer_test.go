package loop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// messagesWith is how many messages of msgs contain s.
func messagesWith(msgs []openai.ChatCompletionMessage, s string) int {
	n := 0
	for _, m := range msgs {
		if strings.Contains(m.Content, s) {
			n++
		}
	}
	return n
}

// blockedToolStep is a step that calls bash and holds its stream until
// release is closed.
func blockedToolStep(release chan struct{}) pt.Step {
	return pt.Reply(append(pt.ToolCallChunks(0, "c1", "bash", `{"command":"echo hi"}`, 1),
		pt.Block(release), pt.FinishChunk("tool_calls"), pt.AutoUsageChunk())...)
}

func TestPickDelivery(t *testing.T) {
	s := func(text string) message.QueuedMessage {
		return message.QueuedMessage{Text: text, Kind: message.KindSteer}
	}
	q := func(text string) message.QueuedMessage {
		return message.QueuedMessage{Text: text, Kind: message.KindQueue}
	}
	old := message.QueuedMessage{Text: "old"} // written before kinds: steers
	texts := func(ms []message.QueuedMessage) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Text)
		}
		return strings.Join(out, ",")
	}
	tests := []struct {
		name      string
		queue     []message.QueuedMessage
		endOfTurn bool
		want      string
	}{
		{"mid-turn takes every steering message", []message.QueuedMessage{s("a"), q("b"), s("c")}, false, "a,c"},
		{"mid-turn leaves queued ones", []message.QueuedMessage{q("b")}, false, ""},
		{"end of turn: late steering first", []message.QueuedMessage{q("b"), s("c")}, true, "c"},
		{"end of turn: then one queued", []message.QueuedMessage{q("b"), q("d")}, true, "b"},
		{"a row without kind steers", []message.QueuedMessage{old}, false, "old"},
		{"empty", nil, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := texts(pickDelivery(tt.queue, tt.endOfTurn)); got != tt.want {
				t.Errorf("picked %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSteerAndQueue: a steering message is in the next request of the
// running turn; a queued one waits for the turn's end and starts a new turn
// of its own, and two queued messages run one turn each, in order.
func TestSteerAndQueue(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, blockedToolStep(release), pt.Text("ok, tabs"), pt.Text("docs done"), pt.Text("tests done"))
	ctx := context.Background()
	h.r.Send(ctx, "start")
	if err := h.srv.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		text string
		kind message.QueueKind
	}{{"then write docs", message.KindQueue}, {"use tabs", message.KindSteer}, {"then run tests", message.KindQueue}} {
		if queued, err := h.r.SendKind(ctx, m.text, m.kind); err != nil || !queued {
			t.Fatalf("send %q: queued %v, %v", m.text, queued, err)
		}
	}
	q, _ := h.r.Queue(ctx)
	if len(q) != 3 || q[0].Kind != message.KindQueue || q[1].Kind != message.KindSteer {
		t.Fatalf("queue %+v", q)
	}
	close(release)
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if res := h.r.Wait(wctx); res.Err != nil {
		t.Fatal(res.Err)
	}
	if n := len(h.srv.Requests()); n != 4 {
		t.Fatalf("%d requests, want 4", n)
	}
	second := h.request(1)
	assertAnswered(t, second)
	if last := second[len(second)-1]; last.Content != "use tabs" || second[len(second)-2].Role != openai.ChatMessageRoleTool {
		t.Errorf("the turn's second step ends with %q after %s, want the steering after the tool result", last.Content, second[len(second)-2].Role)
	}
	if messagesWith(second, "docs") != 0 {
		t.Error("a queued message reached the running turn")
	}
	third := h.request(2)
	if last := third[len(third)-1]; last.Content != "then write docs" || third[len(third)-2].Content != "ok, tabs" {
		t.Errorf("third request ends %q after %q, want the first queued message after the turn's answer", last.Content, third[len(third)-2].Content)
	}
	fourth := h.request(3)
	if last := fourth[len(fourth)-1]; last.Content != "then run tests" || fourth[len(fourth)-2].Content != "docs done" {
		t.Errorf("fourth request ends %q after %q", last.Content, fourth[len(fourth)-2].Content)
	}
	for _, s := range []string{"use tabs", "then write docs", "then run tests"} {
		if n := messagesWith(fourth, s); n != 1 {
			t.Errorf("%q is in the last request %d times", s, n)
		}
	}
	if q, _ := h.r.Queue(ctx); len(q) != 0 {
		t.Errorf("queue not drained: %+v", q)
	}
}

// TestFlipQueuedToSteer: a message queued for after the turn, flipped to
// steering, is injected at the turn's next step; flipped back it waits.
func TestFlipQueuedToSteer(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, blockedToolStep(release), pt.Text("done"), pt.Text("later"))
	ctx := context.Background()
	h.r.Send(ctx, "start")
	h.srv.WaitRequests(ctx, 1)
	h.r.SendKind(ctx, "flip me", message.KindQueue)
	h.r.SendKind(ctx, "flip me back", message.KindSteer)
	q, _ := h.r.Queue(ctx)
	if err := h.r.SetQueuedKind(ctx, q[0].ID, message.KindSteer); err != nil {
		t.Fatal(err)
	}
	if err := h.r.SetQueuedKind(ctx, q[1].ID, message.KindQueue); err != nil {
		t.Fatal(err)
	}
	if q, _ := h.r.Queue(ctx); q[0].Kind != message.KindSteer || q[1].Kind != message.KindQueue {
		t.Fatalf("kinds after the flips: %+v", q)
	}
	close(release)
	if res := h.r.Wait(ctx); res.Err != nil {
		t.Fatal(res.Err)
	}
	second := h.request(1)
	if last := second[len(second)-1]; last.Content != "flip me" {
		t.Errorf("second step ends with %q, want the flipped message", last.Content)
	}
	third := h.request(2)
	if last := third[len(third)-1]; last.Content != "flip me back" {
		t.Errorf("the next turn starts with %q", last.Content)
	}
}

// TestCancelHandsBackBothKinds: a cancel takes back steering and queued
// messages alike; none is ever sent.
func TestCancelHandsBackBothKinds(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := newHarness(t, blockedToolStep(release))
	ctx := context.Background()
	h.r.Send(ctx, "start")
	h.srv.WaitRequests(ctx, 1)
	h.r.SendKind(ctx, "steer me", message.KindSteer)
	h.r.SendKind(ctx, "queue me", message.KindQueue)
	back, err := h.r.Cancel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0].Text != "steer me" || back[1].Text != "queue me" {
		t.Errorf("handed back %+v", back)
	}
	if res := h.r.Wait(ctx); res.FinishReason != FinishCancelled {
		t.Fatalf("turn = %+v", res)
	}
	hist := h.r.History()
	for _, e := range hist {
		if text := joinText(e.Parts, message.PartText); strings.Contains(text, "me") && e.Message.Role == message.RoleUser {
			t.Errorf("a handed-back message was delivered too: %q", text)
		}
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests after the cancel", n)
	}
}

// TestSteerThroughRetry: a steering message injected before a step whose
// request fails and is retried is sent once in the retried request.
func TestSteerThroughRetry(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, blockedToolStep(release), pt.Step{Status: 503, Body: `{"error":{"message":"overloaded"}}`}, pt.Text("ok"))
	ctx := context.Background()
	h.r.Send(ctx, "start")
	h.srv.WaitRequests(ctx, 1)
	h.r.Send(ctx, "use tabs")
	close(release)
	if res := h.r.Wait(ctx); res.Err != nil {
		t.Fatal(res.Err)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Fatalf("%d requests, want 3 (one retried)", n)
	}
	for i := 1; i <= 2; i++ {
		if n := messagesWith(h.request(i), "use tabs"); n != 1 {
			t.Errorf("request %d carries the steering %d times", i, n)
		}
	}
	users := 0
	for _, e := range h.r.History() {
		if e.Message.Role == message.RoleUser && joinText(e.Parts, message.PartText) == "use tabs" {
			users++
		}
	}
	if users != 1 {
		t.Errorf("the steering is stored %d times", users)
	}
}

// TestSettleKeepsALateMessage: a message queued after the run's last look
// at the queue keeps the run going instead of being stranded while idle.
func TestSettleKeepsALateMessage(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.r.state.mu.Lock()
	h.r.turns.busy = true
	h.r.state.mu.Unlock()
	if ok, err := h.r.Steer(ctx, "late"); !ok || err != nil {
		t.Fatalf("steer while busy: %v, %v", ok, err)
	}
	if h.r.turns.settle(ctx, TurnResult{FinishReason: FinishCancelled}) != true {
		t.Error("a cancelled run goes on")
	}
	h.r.state.mu.Lock()
	h.r.turns.busy = true
	h.r.state.mu.Unlock()
	if h.r.turns.settle(ctx, TurnResult{FinishReason: "stop"}) {
		t.Fatal("the run went idle with a steering message queued")
	}
	if !h.r.Busy() {
		t.Error("not busy after settle kept the run")
	}
	h.store.TakeQueue(ctx, h.r.Session().ID)
	if !h.r.turns.settle(ctx, TurnResult{FinishReason: "stop"}) || h.r.Busy() {
		t.Error("an empty queue does not let the run go idle")
	}
	if ok, _ := h.r.Steer(ctx, "too late"); ok {
		t.Error("Steer queued a message while idle")
	}
	if q, _ := h.r.Queue(ctx); len(q) != 0 {
		t.Errorf("queue %+v", q)
	}
}

// TestQueuedThroughCompaction: a steering and a queued message typed while
// a compaction runs are each delivered exactly once, after it and in order:
// the steering as soon as the turn takes input again (here its end, as the
// step after the compaction was already decided), the queued one in a turn
// of its own after that.
func TestQueuedThroughCompaction(t *testing.T) {
	release := make(chan struct{})
	h := newHarnessWith(t, unknownModel,
		textWithUsage(long("one", 10), pt.Usage{Prompt: 1000, Completion: 10}),
		textWithUsage(long("two", 10), pt.Usage{Prompt: 2000, Completion: 10}),
		pt.Reply(append(pt.ToolCallChunks(0, "c1", "bash", `{"command":"echo hi"}`, 1), pt.FinishChunk("tool_calls"), pt.UsageChunk(big))...),
		pt.Reply(pt.Block(release), pt.TextChunk(summaryText), pt.FinishChunk("stop"), pt.AutoUsageChunk()),
		pt.Text("continued"),
		pt.Text("steered"),
		pt.Text("queued turn"),
	)
	h.mustTurn("first")
	h.mustTurn("second")
	ctx := context.Background()
	h.r.Send(ctx, "third: run echo")
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := h.srv.WaitRequests(wctx, 4); err != nil { // the summary request is held
		t.Fatal(err)
	}
	h.r.SendKind(ctx, "steer S", message.KindSteer)
	h.r.SendKind(ctx, "queue Q", message.KindQueue)
	close(release)
	if res := h.r.Wait(wctx); res.Err != nil {
		t.Fatal(res.Err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d requests, want 7", len(reqs))
	}
	if cont := h.request(4); messagesWith(cont, "steer S")+messagesWith(cont, "queue Q") != 0 {
		t.Error("the step that continues after the compaction carries them")
	}
	steered, queued := h.request(5), h.request(6)
	if last := steered[len(steered)-1].Content; last != "steer S" || messagesWith(steered, "queue Q") != 0 {
		t.Errorf("the step after the compaction ends with %q", last)
	}
	if last := queued[len(queued)-1].Content; last != "queue Q" || messagesWith(queued, "steer S") != 1 {
		t.Errorf("the next turn ends with %q; the steering is in it %d times", last, messagesWith(queued, "steer S"))
	}
	stored := 0
	for _, e := range h.r.History() {
		if text := joinText(e.Parts, message.PartText); e.Message.Role == message.RoleUser && (strings.Contains(text, "steer S") || strings.Contains(text, "queue Q")) {
			stored++
		}
	}
	if stored != 2 {
		t.Errorf("%d user messages carry them, want 2", stored)
	}
}
