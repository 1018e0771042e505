package loop

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// waitProgress waits until a running tool's progress shows want.
func (h *harness) waitProgress(callID, want string) {
	h.t.Helper()
	waitFor(h.t.(*testing.T), func() bool {
		for _, ev := range h.eventsOf(message.EventPartUpdated) {
			if p := ev.Part; p.Tool != nil && p.Tool.CallID == callID && strings.Contains(p.Tool.Progress, want) {
				return true
			}
		}
		return false
	})
}

// An interrupted bash command keeps the output it had shown: it is stored
// as the call's result, followed by the interrupted note, and sent to the
// model with the next request.
func TestInterruptedBashKeepsItsOutput(t *testing.T) {
	h := newHarness(t, pt.ToolCall("c1", "bash", `{"command":"for i in 1 2 3; do echo line-$i; done; sleep 100"}`))
	h.r.Send(context.Background(), "run it")
	h.waitProgress("c1", "line-3")
	h.r.Cancel(context.Background())
	if res := h.r.Wait(context.Background()); res.FinishReason != FinishCancelled {
		t.Fatalf("turn = %+v", res)
	}
	hist, _ := h.store.LoadHistory(context.Background(), h.r.Session().ID)
	tool := findTool(hist, "c1")
	if tool == nil || tool.Status != message.ToolError {
		t.Fatalf("tool part after cancel = %+v", tool)
	}
	if !strings.Contains(tool.Output, "line-1\nline-2\nline-3\n") || !strings.HasSuffix(tool.Output, "\n"+message.InterruptedOutput) {
		t.Errorf("stored output %q: want the lines shown, then %q", tool.Output, message.InterruptedOutput)
	}
	h.srv.Add(pt.Text("ok"))
	if res := h.turn("again"); res.Err != nil {
		t.Fatal(res.Err)
	}
	var sent string
	for _, m := range h.request(1) {
		if m.ToolCallID == "c1" {
			sent = m.Content
		}
	}
	if !strings.Contains(sent, "line-3") || !strings.Contains(sent, message.InterruptedOutput) {
		t.Errorf("the model was sent %q for the interrupted call", sent)
	}
}

// After an interrupt the runner's snapshot is what `agent context` computes
// from the stored session: the partial text and the interrupted tool
// outputs are counted as Restore counts them.
func TestReadingAfterInterruptMatchesStoredReading(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := newHarness(t,
		pt.Text("a first answer "+strings.Repeat("with some words ", 50)),
		pt.ToolCall("c1", "bash", `{"command":"for i in $(seq 1 200); do echo output line $i of the command; done; sleep 100"}`),
	)
	if res := h.turn("first"); res.Err != nil {
		t.Fatal(res.Err)
	}
	// Interrupted in a tool run.
	h.r.Send(context.Background(), "run it")
	h.waitProgress("c1", "line 200")
	h.r.Cancel(context.Background())
	h.r.Wait(context.Background())
	assertReadingMatches(t, h, "after a tool interrupt")

	// Interrupted mid-stream: the partial text is kept.
	h.srv.Add(pt.Reply(pt.TextChunk("partial "+strings.Repeat("streamed text ", 80)), pt.Block(release)))
	h.r.Send(context.Background(), "and more")
	waitFor(t, func() bool {
		for _, ev := range h.eventsOf(message.EventPartDelta) {
			if strings.Contains(ev.Delta, "partial") {
				return true
			}
		}
		return false
	})
	h.r.Cancel(context.Background())
	h.r.Wait(context.Background())
	assertReadingMatches(t, h, "after a stream interrupt")
}

func assertReadingMatches(t *testing.T, h *harness, when string) {
	t.Helper()
	got := h.r.Reading()
	want, _, err := StoredReading(context.Background(), h.store, h.cfg, h.r.opt.Tools, h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: runner's reading\n%+v\nStoredReading\n%+v", when, got, want)
	}
}
