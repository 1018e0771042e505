package loop

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// capped is a model with a 400K window and a 272K input cap (gpt-5's
// shape, scaled down): window 40000, output 12800, input 27200.
func capped(o *Options, c *config.Config) {
	o.TrustUsage = true // the scripted usage stands for a large context
	c.Model = "capped"
	c.Models["capped"] = config.ModelInfo{ContextWindow: 40000, MaxOutput: 12800, InputLimit: 27200}
}

// TestInputLimitCompactsBeforeTheCap: a total past the input limit but
// below window − reserve compacts before the next step, instead of sending
// a request the provider refuses.
func TestInputLimitCompactsBeforeTheCap(t *testing.T) {
	h := newHarnessWith(t, capped,
		textWithUsage("one", pt.Usage{Prompt: 1000, Completion: 10}),
		textWithUsage("two", pt.Usage{Prompt: 2000, Completion: 10}),
		textWithUsage("three", pt.Usage{Prompt: 28000, Completion: 500}),
		pt.Text(summaryText),
		pt.Text("four"),
	)
	for _, q := range []string{"first", "second", "third"} {
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	s := h.r.Reading()
	if s.CompactAt != 27200 || s.InputLimit == nil || *s.InputLimit != 27200 {
		t.Fatalf("snapshot: compact at %d, input limit %v; want 27200", s.CompactAt, s.InputLimit)
	}
	if s.Total <= 27200 || s.Total >= s.Window-s.OutputReserve {
		t.Fatalf("total %d should be past the cap and below window − reserve %d", s.Total, s.Window-s.OutputReserve)
	}
	if res := h.turn("fourth"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if !isSummaryRequest(h.request(3)) {
		t.Errorf("request 3 is not a summary request: the cap did not trigger compaction")
	}
	if ev := h.eventsOf(message.EventCompacted); len(ev) != 1 || ev[0].Compaction.Reason != "overflow" {
		t.Errorf("compacted events = %+v", ev)
	}
}

// TestPruneSavingIsCalibratedInTheLoop: with a provider that counts about
// half what chars/4 estimates (the calibration learns it), a prune's saving
// is taken off the total at the calibrated size. Uncalibrated, it took off
// about twice what the cleared outputs cost, and the total fell to almost
// nothing with "messages back-calculated negative".
func TestPruneSavingIsCalibratedInTheLoop(t *testing.T) {
	bigOut := `{"command":"head -c 120000 /dev/zero | tr '\\0' x"}`
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Tools.BashMaxOutputChars = 200000
		c.Compaction.PruneProtect, c.Compaction.PruneMinimum = 15000, 5000
	})
	var n int
	h.srv.Handle(func(req pt.Request) pt.Step {
		n++ // one request at a time: the loop waits for each
		half := pt.UsageChunk(pt.Usage{Prompt: len(req.Body) / 8, Completion: 10})
		switch n {
		case 1, 3:
			call := pt.ToolCallChunks(0, fmt.Sprintf("c%d", n), "bash", bigOut, 1)
			return pt.Reply(append(call, pt.FinishChunk("tool_calls"), half)...)
		}
		return pt.Reply(pt.TextChunk(fmt.Sprintf("answer %d", n)), pt.FinishChunk("stop"), half)
	})
	for _, q := range []string{"first", "second", "third", "fourth"} {
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	ev := h.eventsOf(message.EventPruned)
	if len(ev) == 0 {
		t.Fatal("nothing pruned")
	}
	s := h.r.Reading()
	if s.Calibration > 0.8 {
		t.Fatalf("calibration %.2f: the provider should have taught about 0.5", s.Calibration)
	}
	p := ev[0].Prune
	taken := p.TokensBefore - p.TokensAfter
	if want := int64(math.Ceil(float64(p.TokensSaved) * s.Calibration)); taken < want-1 || taken > want+1 {
		t.Errorf("prune took %d tokens off the total (before %d, after %d); want the saving %d × calibration %.2f = %d",
			taken, p.TokensBefore, p.TokensAfter, p.TokensSaved, s.Calibration, want)
	}
	if slices.Contains(s.Warnings, tokens.WarnMessagesNegative) {
		t.Errorf("snapshot after the prune: %+v", s)
	}
	read, _, err := StoredReading(context.Background(), h.store, h.cfg, h.r.opt.Tools, h.r.Session().ID)
	if err != nil || read.Total != s.Total {
		t.Errorf("after a prune: read %d, live %d (%v)", read.Total, s.Total, err)
	}
}

// TestPruneThresholds: the defaults shrink to a small window; what the user
// set is used as it is.
func TestPruneThresholds(t *testing.T) {
	small := config.ModelInfo{ContextWindow: 32768, MaxOutput: 4096} // usable 28672
	large := config.ModelInfo{ContextWindow: 400000, MaxOutput: 128000, InputLimit: 272000}
	for _, tt := range []struct {
		name             string
		model            config.ModelInfo
		protect, minimum int64 // configured; 0 = default
		wantP, wantM     int64
	}{
		{"defaults scale to a small window", small, 0, 0, 28672 / 4, 28672 / 16},
		{"the user's values are kept in a small window", small, 60000, 30000, 60000, 30000},
		{"one set, one default", small, 10000, 0, 10000, 28672 / 16},
		{"defaults in a large window (usable: the input limit)", large, 0, 0, 40000, 272000 / 16},
		{"the user's smaller values in a large window", large, 5000, 1000, 5000, 1000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{Model: "m", Models: map[string]config.ModelInfo{"m": tt.model},
				Compaction: config.Compaction{Strategy: "overflow", Threshold: 0.8, PruneProtect: tt.protect, PruneMinimum: tt.minimum}}
			r := &Runner{opt: Options{Config: cfg}, stepper: &stepper{}, state: &sessionState{}}
			r.setModel("m")
			r.calcp.Store(tokens.NewCalculator(r.mp.calcOptions(), r.mp.est))
			got := r.mp.priced(r.opt.Config, r.stepper.ceiling.Load(), r.calcp.Load()).pruneOptions()
			if got.Protect != tt.wantP || got.Minimum != tt.wantM {
				t.Errorf("protect, minimum = %d, %d; want %d, %d", got.Protect, got.Minimum, tt.wantP, tt.wantM)
			}
		})
	}
}

// TestCompactionNearIsAnnounced: passing 90% of the compaction point is
// announced once, with the turns left at the recent growth per turn; the
// steps after it refresh the forecast as updates, so it counts down.
// The 32K model compacts at 28672; 90% is 25805.
func TestCompactionNearIsAnnounced(t *testing.T) {
	h := newHarnessWith(t, unknownModel)
	for _, prompt := range []int{20000, 22000, 24000, 26000, 26500} {
		h.srv.Add(textWithUsage("ok", pt.Usage{Prompt: prompt, Completion: 10}))
	}
	for i := range 5 {
		if res := h.turn(fmt.Sprintf("turn %d", i+1)); res.Err != nil {
			t.Fatal(res.Err)
		}
		if n := len(h.eventsOf(message.EventCompactionNear)); i < 4 && n != 0 {
			t.Fatalf("announced at turn %d, total %d", i+1, h.r.Reading().Total)
		}
	}
	ev := h.eventsOf(message.EventCompactionNear)
	if len(ev) != 1 {
		t.Fatalf("%d announcements, want 1 (once per crossing): %+v", len(ev), ev)
	}
	f := ev[0].Forecast
	// Started at ~26010 with 2660 of room, growing 2000 a turn.
	if f == nil || f.TurnsLeft != 2 || f.NextStep || f.Text != "compaction in about 2 turns" || f.CompactAt != 28672 || f.Total < 25805 {
		t.Errorf("forecast = %+v", f)
	}
	if len(h.eventsOf(message.EventCompacted)) != 0 {
		t.Error("compacted before the point")
	}

	h.srv.Add(textWithUsage("ok", pt.Usage{Prompt: 27900, Completion: 10}), textWithUsage("ok", pt.Usage{Prompt: 28000, Completion: 10}))
	for _, turn := range []string{"turn 6", "turn 7"} {
		if res := h.turn(turn); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	ev = h.eventsOf(message.EventCompactionNear)
	if len(ev) != 3 || ev[0].Forecast.Update || !ev[1].Forecast.Update || !ev[2].Forecast.Update {
		t.Fatalf("after two more turns: %d forecasts, want the first and two updates: %+v", len(ev), ev)
	}
	// Turn 7 starts 700 below the point after a turn that grew 1400.
	if g := ev[2].Forecast; !g.NextStep || g.Text != "compaction at the next step" {
		t.Errorf("the last update %+v does not count down from %+v", g, f)
	}
}
