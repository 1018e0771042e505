package loop

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// faultServer answers a scripted session (a tool call, then an answer, per
// turn) but injects a seeded mix of faults before the real answer: 429s
// with Retry-After, 5xx, resets, streams cut short, malformed chunks,
// mid-stream error objects and slow responses.
type faultServer struct {
	mu     sync.Mutex
	rnd    *rand.Rand
	faults map[string]int
	calls  int
}

var faultKinds = []string{"429", "503", "reset", "cut", "malformed", "midstream", "slow", "html502"}

func (f *faultServer) handle(req pt.Request) pt.Step {
	f.mu.Lock()
	defer f.mu.Unlock()
	delay := time.Millisecond
	if f.rnd.IntN(100) < 35 {
		kind := faultKinds[f.rnd.IntN(len(faultKinds))]
		f.faults[kind]++
		switch kind {
		case "429":
			return pt.HTTPError(429, map[string]string{"Retry-After": "3"}, `{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}`)
		case "503":
			return pt.HTTPError(503, nil, `{"error":{"message":"The server is overloaded"}}`)
		case "reset":
			return pt.Reply(pt.TextChunk("partial "), pt.Disconnect())
		case "cut":
			return pt.CutShort(pt.TextChunk("half an"))
		case "malformed":
			return pt.Reply(pt.TextChunk("ok "), pt.JSONChunk(`{"choices":[{"delta":{"content":`), pt.FinishChunk("stop"))
		case "midstream":
			return pt.Reply(pt.TextChunk("so far "), pt.JSONChunk(`{"error":{"message":"upstream overloaded, please retry","code":502}}`))
		case "slow":
			// Slow but complete: a real answer after a pause.
			delay = 40 * time.Millisecond
		case "html502":
			return pt.HTTPError(502, map[string]string{"Content-Type": "text/html"}, "<html><body>Bad Gateway</body></html>")
		}
	}
	last := req.Chat.Messages[len(req.Chat.Messages)-1]
	if last.Role == "user" {
		f.calls++
		return pt.Reply(append(append([]pt.Chunk{pt.Delay(delay)},
			pt.ToolCallChunks(0, fmt.Sprintf("call_%d", f.calls), "bash", fmt.Sprintf(`{"command":"echo step %d"}`, f.calls), 3)...),
			pt.FinishChunk("tool_calls"), pt.AutoUsageChunk())...)
	}
	step := pt.Text("Done with that step.")
	step.Chunks = append([]pt.Chunk{pt.Delay(delay)}, step.Chunks...)
	return step
}

func TestFaultInjection(t *testing.T) {
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	for seed := 1; seed <= seeds; seed++ {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			f := &faultServer{rnd: rand.New(rand.NewPCG(uint64(seed), 7)), faults: map[string]int{}}
			h := newHarnessWith(t, func(o *Options, _ *config.Config) {
				o.Retry = RetryPolicy{Initial: time.Second, Max: time.Minute, Attempts: 4}
			})
			h.srv.Handle(f.handle)
			completed, failed := 0, 0
			for i := 0; i < 6; i++ {
				res := h.turn(fmt.Sprintf("task %d", i))
				switch {
				case res.Err == nil:
					completed++
				case strings.TrimSpace(res.Err.Error()) == "":
					t.Errorf("turn %d failed without a message", i)
				default:
					failed++
					t.Logf("turn %d failed clearly: %v", i, res.Err)
				}
			}
			// Everything the loop reported as done is in the database.
			hist, err := h.store.LoadHistory(context.Background(), h.r.Session().ID)
			if err != nil {
				t.Fatal(err)
			}
			stored := map[string]message.ToolStatus{}
			for _, e := range hist {
				for _, p := range e.Parts {
					if p.Tool != nil {
						stored[p.Tool.CallID] = p.Tool.Status
					}
				}
			}
			for _, ev := range h.eventsOf(message.EventPartUpdated) {
				if ev.Part.Tool != nil && ev.Part.Tool.Status == message.ToolCompleted && stored[ev.Part.Tool.CallID] != message.ToolCompleted {
					t.Errorf("tool %s completed but stored as %q", ev.Part.Tool.CallID, stored[ev.Part.Tool.CallID])
				}
			}
			// And the next request is valid whatever happened.
			for _, r := range h.srv.Requests() {
				assertAnswered(t, r.Chat.Messages)
			}
			t.Logf("faults %v: %d turns completed, %d failed", f.faults, completed, failed)
			if completed == 0 {
				t.Error("no turn completed: retries are not working")
			}
		})
	}
}
