package loop

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/budget"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// stepperFake is the session a stepper is given in its own tests: a
// history, events and counters behind stepDeps, with no Runner.
type stepperFake struct {
	t       *testing.T
	cfg     *config.Config
	store   *storage.Store
	calc    *tokens.Calculator
	mu      sync.Mutex
	history []message.Entry
	events  []message.Event
	usage   []message.Usage
	sleeps  []time.Duration
	through int
	fixed   int
}

// newStepperFake makes a stepper over a fake session; srv may be nil for a
// stepper that sends no request, and opt, if set, changes its options.
func newStepperFake(t *testing.T, srv *pt.Server, opt func(*Options)) (*stepper, *stepperFake) {
	t.Helper()
	f := &stepperFake{t: t}
	data, home := t.TempDir(), t.TempDir()
	base := "http://127.0.0.1:1/v1"
	if srv != nil {
		base = srv.URL
	}
	cfg, err := config.Load(config.Flags{Model: "gpt-4.1", BaseURL: base, DataDir: data}, t.TempDir(),
		func(k string) string { return map[string]string{"HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	f.cfg = cfg
	seedDataDir(t, data)
	if f.store, err = storage.Open(context.Background(), data); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.store.Close() })
	sess := &message.Session{Model: cfg.Model, Dir: t.TempDir()}
	if err := f.store.CreateSession(context.Background(), sess); err != nil {
		t.Fatal(err)
	}
	o := Options{Store: f.store, Provider: provider.NewOpenAI(provider.Config{BaseURL: base}), Tools: tools.NewRegistry(),
		Config: cfg, OutputDir: filepath.Join(data, "outputs"), Retry: DefaultRetryPolicy, Ledger: budget.New(0, 0),
		Sleep: func(ctx context.Context, d time.Duration) error {
			f.mu.Lock()
			f.sleeps = append(f.sleeps, d)
			f.mu.Unlock()
			return ctx.Err()
		}}
	if opt != nil {
		opt(&o)
	}
	m := newModelPricing(cfg, cfg.Model, nil)
	f.calc = tokens.NewCalculator(m.calcOptions(), m.est)
	sp := newStepper(stepDeps{
		opt: o, store: f.store, sessionID: sess.ID, toolEnv: &tools.Env{Dir: sess.Dir},
		history:     func() []message.Entry { return f.history },
		historyMark: func() historyMark { return historyMark{} }, // its history is set in place: walked whole
		system:      func() []string { return []string{"You are a test."} },
		appendEntry: func(e message.Entry) {
			f.mu.Lock()
			f.history = append(f.history, e)
			f.mu.Unlock()
		},
		replaceEntry: func(e message.Entry) {
			f.mu.Lock()
			defer f.mu.Unlock()
			for i := range f.history {
				if f.history[i].Message.ID == e.Message.ID {
					f.history[i] = e
				}
			}
		},
		modelPricing: func() modelPricing { return m },
		calc:         func() *tokens.Calculator { return f.calc },
		fixedTokens: func() (int64, int64) {
			f.mu.Lock()
			f.fixed++
			f.mu.Unlock()
			return 10, 0
		},
		pinsNow: func() (string, int64) { return "", 0 },
		emit: func(ev message.Event) {
			f.mu.Lock()
			f.events = append(f.events, ev)
			f.mu.Unlock()
		},
		addSessionUsage: func(_ context.Context, u message.Usage, _ float64) {
			f.mu.Lock()
			f.usage = append(f.usage, u)
			f.mu.Unlock()
		},
		decisionReading: func(own int64) tokens.Reading { s := f.calc.Reading(); s.Total = max(s.Total, own); return s },
		withFixed:       func(calibrated, plain int64) int64 { return max(calibrated, plain) + 10 },
		compactAfterRefusal: func(context.Context, int, error, int64) error {
			t.Error("no compaction expected")
			return errors.New("no compaction here")
		},
		requestThrough:  func() { f.through++ },
		checkpointTools: func(_ context.Context, _ *message.Entry, _ []int, run func()) { run() },
		checkCall:       func(context.Context, tools.Call) (bool, string, error) { return true, "", nil },
		postToolHooks:   func(_ context.Context, _ tools.Call, res tools.Result) tools.Result { return res },
		takeStopTurn:    func() bool { return false },
		recordProcess:   func(context.Context, *message.Entry, int, tools.ProcessGroup) {},
		firstRequest:    func() {},
		firstByte:       func() {},
		withSession: func(fn func(bool, []message.Entry, []string)) {
			f.mu.Lock()
			defer f.mu.Unlock()
			fn(false, f.history, []string{"You are a test."})
		},
		modelSteady: func(fn func()) { fn() },
		busy:        func() bool { return false },
	})
	return sp, f
}

func (f *stepperFake) eventsOf(typ message.EventType) []message.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []message.Event
	for _, ev := range f.events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// A step whose first attempt the server refuses with a 500 is retried:
// the failed attempt stays in the history superseded, the retry is
// announced and waited for, and the answer's usage reaches the session's
// totals; the breaker hears that a request went through once.
func TestStepperRetriesAStepWithoutARunner(t *testing.T) {
	srv := pt.New(t, pt.HTTPError(500, nil, `{"error":{"message":"boom"}}`), pt.Text("hello there"))
	sp, f := newStepperFake(t, srv, nil)
	f.history = append(f.history, message.Entry{Message: message.Message{ID: "u1", Role: message.RoleUser},
		Parts: []message.Part{{Type: message.PartText, Text: "hi"}}})

	out, err := sp.step(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.finish != "stop" || out.stop != "" {
		t.Fatalf("outcome = %+v, want finish stop", out)
	}
	if len(f.history) != 3 {
		t.Fatalf("history has %d entries, want the user's, the failed attempt and the answer", len(f.history))
	}
	if failed := f.history[1].Message; failed.Error != ErrSuperseded {
		t.Errorf("the failed attempt's error = %q, want it superseded", failed.Error)
	}
	if got := joinText(f.history[2].Parts, message.PartText); got != "hello there" {
		t.Errorf("answer = %q", got)
	}
	if r := f.eventsOf(message.EventRetrying); len(r) != 1 || r[0].Retry.Attempt != 2 {
		t.Errorf("retry events = %+v, want one announcing attempt 2", r)
	}
	if len(f.sleeps) != 1 || len(f.usage) != 1 || f.usage[0].Input == 0 || f.through != 1 {
		t.Errorf("sleeps %v, usage %+v, through %d: want one wait, the answer's usage, one request through", f.sleeps, f.usage, f.through)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || len(reqs[1].Chat.Messages) != 2 {
		t.Errorf("requests = %d, want 2 each with the system prompt and the user's message", len(reqs))
	}
}

// The doom guard stops the third identical call when no one can be
// asked; asked, "always allow" is remembered, so the same call is not
// asked about again.
func TestStepperDoomGuard(t *testing.T) {
	call := func(sp *stepper) (string, error) {
		e := &message.Entry{Parts: []message.Part{{Type: message.PartTool, Tool: &message.ToolState{Name: "read", Input: `{"path": "a"}`}}}}
		return sp.checkDoom(context.Background(), e, 0)
	}
	sp, f := newStepperFake(t, nil, nil)
	for i := 1; i <= DoomThreshold; i++ {
		stop, err := call(sp)
		if i < DoomThreshold && stop != "" {
			t.Fatalf("call %d stopped: %q", i, stop)
		}
		if i == DoomThreshold && (stop != FinishDoomLoop || err == nil) {
			t.Fatalf("call %d: stop %q, err %v; want a doom loop", i, stop, err)
		}
	}
	if len(f.eventsOf(message.EventError)) != 1 {
		t.Errorf("want one error event, got %+v", f.eventsOf(message.EventError))
	}

	asker := &countingAsker{reply: DoomAlwaysAllow}
	sp, _ = newStepperFake(t, nil, func(o *Options) { o.Doom = asker })
	for i := 0; i < 3*DoomThreshold; i++ {
		if stop, err := call(sp); stop != "" || err != nil {
			t.Fatalf("call %d: stop %q, err %v; want it run", i, stop, err)
		}
	}
	if asker.asked != 1 {
		t.Errorf("asked %d times, want once: always allow is remembered", asker.asked)
	}
}

type countingAsker struct {
	reply DoomReply
	asked int
}

func (a *countingAsker) AskDoomLoop(context.Context, string, string) (DoomReply, error) {
	a.asked++
	return a.reply, nil
}

// A model whose server refused tools is sent none for the rest of the
// session, said once, and its fixed tokens are counted again without the
// schemas.
func TestStepperToolsOffOnce(t *testing.T) {
	sp, f := newStepperFake(t, nil, nil)
	refusal := &provider.Error{Class: provider.ClassToolsUnsupported, Message: "does not support tools"}
	if sp.toolsOff("m1") {
		t.Fatal("tools off before a refusal")
	}
	if !sp.turnToolsOff("m1", refusal) || sp.turnToolsOff("m1", refusal) {
		t.Fatal("turnToolsOff: want true the first time only")
	}
	if !sp.toolsOff("m1") || sp.toolsOff("m2") {
		t.Error("toolsOff: want m1 off and m2 on")
	}
	if n := f.eventsOf(message.EventNote); len(n) != 1 {
		t.Errorf("notes = %+v, want one", n)
	}
	if f.fixed != 1 {
		t.Errorf("fixed tokens counted %d times, want once", f.fixed)
	}
}

// A cap on an unpriced model cannot be enforced: that is said once per
// cap, and the requests go out.
func TestStepperUnpricedBudgetSaidOncePerCap(t *testing.T) {
	sp, f := newStepperFake(t, nil, func(o *Options) { o.Ledger = budget.New(1, 0) })
	for i := 0; i < 3; i++ {
		held, n, err := sp.reserveOutput("no-price-model", 1000, 100, 10)
		if err != nil || n != 100 {
			t.Fatalf("reserve: %v, %d tokens", err, n)
		}
		held.Settle(0)
	}
	if n := len(f.eventsOf(message.EventNote)); n != 1 {
		t.Fatalf("%d notes, want one", n)
	}
	sp.setBudget(2)
	held, _, err := sp.reserveOutput("no-price-model", 1000, 100, 10)
	if err != nil {
		t.Fatal(err)
	}
	held.Settle(0)
	if n := len(f.eventsOf(message.EventNote)); n != 2 || sp.opt.Ledger.Cap() != 2 {
		t.Errorf("%d notes, cap %v: want the new cap said again", n, sp.opt.Ledger.Cap())
	}
}

// A long idle session's history is converted and priced in the
// background (warmRequestCache) before the next request needs it.
func TestStepperWarmsTheRequestCache(t *testing.T) {
	sp, f := newStepperFake(t, nil, nil)
	for i := 0; i < warmFrom+10; i++ {
		role := message.RoleUser
		if i%2 == 1 {
			role = message.RoleAssistant
		}
		f.history = append(f.history, message.Entry{Message: message.Message{ID: fmt.Sprintf("m%04d", i), Role: role},
			Parts: []message.Part{{Type: message.PartText, Text: fmt.Sprintf("entry %d", i)}}})
	}
	sp.warmRequestCache()
	sp.stopWarming()
	sp.reqc.mu.Lock()
	defer sp.reqc.mu.Unlock()
	for _, e := range f.history {
		if ce := sp.reqc.entries[e.Message.ID]; ce == nil || ce.conv == nil {
			t.Fatalf("entry %s not warmed", e.Message.ID)
		}
	}
	if sp.warm.active {
		t.Error("the warming is over but still marked active")
	}
}
