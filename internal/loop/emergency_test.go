package loop

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestAutoOffStillCompactsInAnEmergency: with compaction.auto off a
// session past its compaction point is not compacted, but when the
// provider refuses a request for its size the loop compacts anyway — and
// the compaction says it was an emergency, in its event and in the log
// `agent inspect` reads.
func TestAutoOffStillCompactsInAnEmergency(t *testing.T) {
	overflow := pt.HTTPError(400, nil, `{"error":{"message":"This model's maximum context length is 32768 tokens","code":"context_length_exceeded"}}`)
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Model = "m"
		c.Compaction.Auto = false
	},
		textWithUsage(long("one", 10), pt.Usage{Prompt: 1000, Completion: 10}),
		textWithUsage(long("two", 10), pt.Usage{Prompt: 2000, Completion: 10}),
		textWithUsage("three", big), // past the point: auto would compact now
		pt.Text("four"),
		overflow,
		pt.Text(summaryText),
		pt.Text("five"),
	)
	for _, q := range []string{"first", "second", "third", "fourth"} {
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	if n := len(h.eventsOf(message.EventCompacting)); n != 0 {
		t.Fatalf("%d compactions with compaction.auto off before any refusal", n)
	}
	if res := h.turn("fifth"); res.Err != nil || res.FinishReason != "stop" {
		t.Fatalf("turn after the refusal = %+v", res)
	}
	ev := h.eventsOf(message.EventCompacted)
	if len(ev) != 1 || !ev[0].Compaction.Emergency || ev[0].Compaction.Rejected || ev[0].Compaction.Reason != "context_error" {
		t.Fatalf("compacted events = %+v", ev)
	}
	log, _ := h.store.ListEventLog(context.Background(), h.r.Session().ID)
	var labelled bool
	for _, l := range log {
		var c message.CompactionState
		if l.Kind == "compaction" && json.Unmarshal(l.Data, &c) == nil && c.Emergency {
			labelled = true
		}
	}
	if !labelled {
		t.Error("the event log's compaction is not labelled an emergency")
	}
}
