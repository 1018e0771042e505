package loop

import (
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// pricingConfig is a config with no files and no environment.
func pricingConfig(t *testing.T, mutate func(*config.Config)) *config.Config {
	t.Helper()
	home := t.TempDir()
	cfg, err := config.Load(config.Flags{Model: "gpt-4.1", DataDir: t.TempDir()}, t.TempDir(),
		func(k string) string { return map[string]string{"HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(cfg)
	}
	return cfg
}

func pricingOf(cfg *config.Config, ceiling int64) pricing {
	m := newModelPricing(cfg, "", nil)
	return pricing{modelPricing: m, cfg: cfg, ceiling: ceiling, calc: m.restoreCalculator(100, 50, nil, nil)}
}

// The pricing of an empty history: the fixed tokens are the total, the
// compaction point is the strategy's until a refusal lowers it, and the
// fit point never exceeds the window less the output reserve.
func TestPricingFitPointAndCeiling(t *testing.T) {
	cfg := pricingConfig(t, nil)
	p := pricingOf(cfg, 0)
	s := p.snapshot()
	if s.Total != 150 || s.Breakdown.System != 100 || s.Breakdown.Tools != 50 {
		t.Fatalf("snapshot of an empty history: %+v", s)
	}
	if p.fitPoint() != s.CompactAt || s.CompactAt <= 0 || s.CompactAt > s.Window-s.OutputReserve {
		t.Fatalf("fit point %d, compact at %d, window %d", p.fitPoint(), s.CompactAt, s.Window)
	}
	lowered := pricingOf(cfg, 10000)
	if lp := lowered.fitPoint(); lp >= p.fitPoint() || lp > 10000 {
		t.Errorf("a ceiling of 10000 leaves the fit point at %d (was %d)", lp, p.fitPoint())
	}
	if lowered.snapshot().CompactAt != lowered.fitPoint() {
		t.Errorf("snapshot's compaction point %d, fit point %d", lowered.snapshot().CompactAt, lowered.fitPoint())
	}
	if got := lowered.summarySizing(lowered.model).MaxTokens; got > 10000/4 {
		t.Errorf("summary output %d over a quarter of the lowered point", got)
	}
}

// Manual compaction and an unknown strategy: never automatic, and the
// fallback strategy, as Open picks them.
func TestModelPricingStrategy(t *testing.T) {
	manual := pricingOf(pricingConfig(t, func(c *config.Config) { c.Compaction.Auto = false }), 0)
	if at := manual.snapshot().CompactAt; at != 0 {
		t.Errorf("compaction.auto off: compact at %d, want 0", at)
	}
	if manual.fitPoint() <= 0 {
		t.Errorf("manual compaction's fit point %d: want window − reserve", manual.fitPoint())
	}
	odd := pricingOf(pricingConfig(t, func(c *config.Config) { c.Compaction.Strategy = "no-such" }), 0)
	def := pricingOf(pricingConfig(t, func(c *config.Config) { c.Compaction.Strategy = "overflow" }), 0)
	if odd.snapshot().CompactAt != def.snapshot().CompactAt {
		t.Errorf("an unknown strategy compacts at %d, overflow at %d", odd.snapshot().CompactAt, def.snapshot().CompactAt)
	}
	if _, ok := newModelPricing(pricingConfig(t, nil), "", nil).est.(tokens.Chars); !ok {
		t.Error("no estimator given: want chars/4")
	}
}

// The pure parts of the read path: the tool schemas are not counted for a
// model sent no tools, a history with nothing to undo prices no undo, and
// an empty history previews nothing to compact.
func TestPricingPureParts(t *testing.T) {
	reg := tools.NewRegistry()
	sys, tl := fixedTokensOf([]string{"abcd", "efgh"}, reg, true, tokens.Chars{})
	if sys != 2*(1+tokens.TokensPerMessage) || tl != 0 {
		t.Errorf("fixed tokens %d, %d", sys, tl)
	}
	calls := 0
	c := restoreCostOf(nil, func(h []message.Entry) int64 { calls++; return 42 }, 7)
	if c.Undo != nil || c.Full != 42 || c.Fit != 7 || calls != 1 {
		t.Errorf("restore cost of an empty history %+v (%d estimates)", c, calls)
	}
	p := previewOf(pricingOf(pricingConfig(t, nil), 0), nil, nil, "s")
	if !p.Nothing || p.NothingReason == "" || p.Total != 150 || p.After != p.Total {
		t.Errorf("preview of an empty history: %+v", p)
	}
}

// TestFixedTokensCharsWithoutConcatenating: the chars/4 estimate of the
// tool schemas, counted from their lengths, is what counting their
// concatenation gives (an estimator that is not tokens.Chars takes that
// path), for every built-in tool.
func TestFixedTokensCharsWithoutConcatenating(t *testing.T) {
	type concatenated struct{ tokens.Chars }
	reg := tools.NewRegistry()
	if len(reg.Tools()) < 5 {
		t.Fatalf("only %d built-in tools", len(reg.Tools()))
	}
	sys, tl := fixedTokensOf([]string{"system"}, reg, false, tokens.Chars{})
	wantSys, wantTl := fixedTokensOf([]string{"system"}, reg, false, concatenated{})
	if sys != wantSys || tl != wantTl || tl <= 8*int64(len(reg.Tools())) {
		t.Fatalf("chars: %d, %d; concatenated: %d, %d", sys, tl, wantSys, wantTl)
	}
}
