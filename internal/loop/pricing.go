package loop

// Pricing a history: what the calculator, the compaction plan, the
// preview and the restore cost are computed from, as a value. A running
// session takes one from its Runner (modelPricing.priced: the live model, the
// refusals it learnt, its calculator); the read-only commands (`agent
// context`, `agent sessions`, `agent compact --dry-run`) build one from
// what is stored (StoredReading, reading.go) without a Runner or a lease.
// Nothing here writes, sends or locks.

import (
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/prune"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// modelPricing is what a model prices with: its limits, the estimator and
// the compaction strategy. Its zero value is not usable; newModelPricing
// makes one.
type modelPricing struct {
	model    string
	info     config.ModelInfo
	est      tokens.Estimator
	strategy compact.Strategy
}

// newModelPricing picks model's limits, estimator (est, or chars/4 when
// nil) and the compaction strategy cfg names; model "" is cfg's model.
func newModelPricing(cfg *config.Config, model string, est tokens.Estimator) modelPricing {
	if model == "" {
		model = cfg.Model
	}
	m := modelPricing{model: model}
	m.info, _ = cfg.ModelInfo(model)
	// chars/4, calibrated by the calculator against each call's real
	// usage, measured within 0.2% of a real tokenizer over a long session
	// (see internal/context/tokens); a BPE tokenizer costs 0.8 s and 22 MiB
	// to load and 4 ms per 10 KB, on the start-up and streaming paths.
	m.est = est
	if m.est == nil {
		m.est = tokens.Chars{}
	}
	c := cfg.Compaction
	strategy := c.Strategy
	if !c.Auto {
		strategy = "manual"
	}
	s, err := compact.NewStrategy(strategy, c.Threshold)
	if err != nil {
		s, _ = compact.NewStrategy("overflow", c.Threshold)
	}
	m.strategy = inputCapped{s}
	return m
}

// calcOptions are the calculator's options for the model.
func (m modelPricing) calcOptions() tokens.Options {
	return tokens.Options{
		Window:             m.info.ContextWindow,
		MaxOutput:          m.info.MaxOutput,
		InputLimit:         m.info.InputLimit,
		ReserveCap:         32000,
		ReasoningRoundtrip: m.info.ReasoningRoundtrip,
		CompactAt:          strategyCompactAt(m.strategy),
	}
}

// restoreCalculator is the calculator of a stored history: the
// calculation Open makes (tokens.Restore), with the pins' tokens.
func (m modelPricing) restoreCalculator(system, tools int64, history []message.Entry, pins []message.Pin) *tokens.Calculator {
	calc := tokens.Restore(m.calcOptions(), m.est, system, tools, history)
	calc.InitPins(pinsTokens(pins, m.est))
	_, todoTokens := todoNow(history, m.est)
	calc.InitTodo(todoTokens)
	return calc
}

// pricing is a session's pricing now: the model's, the config's
// compaction settings, the compaction point's lowering by the provider's
// refusals (ceiling, 0: none) and the calculator. Its methods are pure.
type pricing struct {
	modelPricing
	cfg     *config.Config
	ceiling int64
	calc    *tokens.Calculator
}

// priced is m's pricing with the config, the compaction ceiling and the
// calculator: a running session's is its model's, its ceiling now
// (stepper.ceiling) and its calculator.
func (m modelPricing) priced(cfg *config.Config, ceiling int64, calc *tokens.Calculator) pricing {
	return pricing{modelPricing: m, cfg: cfg, ceiling: ceiling, calc: calc}
}

// fitPoint is the total a compaction must bring the request under: the
// strategy's compaction point (window − reserve for manual compaction),
// lowered by what the provider's refusals taught.
func (p pricing) fitPoint() int64 {
	s := p.calc.Reading()
	point := s.CompactAt
	if point <= 0 {
		point = max(s.Window-s.OutputReserve, 0)
	}
	return compact.LowerPoint(point, p.ceiling, s.Window, s.OutputReserve)
}

// snapshot is the calculator's snapshot with its compaction point
// lowered by the provider's refusals (Runner.Reading); it reads only
// calc and ceiling.
func (p pricing) snapshot() tokens.Reading {
	s := p.calc.Reading()
	s.CompactAt = compact.LowerPoint(s.CompactAt, p.ceiling, s.Window, s.OutputReserve)
	return withPromptLines(s) // promptlines.go
}

// planOptions are the compaction plan's bounds for the session's model.
func (p pricing) planOptions() compact.Options {
	s := p.calc.Reading()
	opts := compact.DefaultOptions(min(s.Window, max(p.fitPoint()+s.OutputReserve, 1)), s.OutputReserve)
	if n := p.cfg.Compaction.TailTurns; n >= 0 {
		opts.TailTurns = n
	}
	if n := p.cfg.Compaction.TailTokens; n > 0 {
		// The user's budget for the verbatim tail, up to half the usable
		// window: a larger tail would leave a summary no room to help.
		opts.TailBudget = min(n, 2*opts.TailBudget)
	}
	return opts
}

// summaryMaxTokens caps a summary request's output:
// compaction.summary_max_tokens, or compact.DefaultSummaryMaxTokens.
func (p pricing) summaryMaxTokens() int64 {
	if n := p.cfg.Compaction.SummaryMaxTokens; n > 0 {
		return n
	}
	return compact.DefaultSummaryMaxTokens
}

// summaryModel is the model that writes a summary: small_model unless it
// was found unreachable, else the session's.
func (p pricing) summaryModel() string {
	if m := p.cfg.SmallModel; m != "" && !smallModelMarks(p.cfg).Unreachable(m, time.Now()) {
		return m
	}
	return p.model
}

// summarySizing sizes a summary request to writer's window (lowered by
// what the provider's refusals taught, for the main model) with a bounded
// output: at most summary_max_tokens and a quarter of the compaction point.
func (p pricing) summarySizing(writer string) compact.Sizing {
	info, _ := p.cfg.ModelInfo(writer)
	window := info.ContextWindow
	if writer == p.model {
		if c := p.ceiling; c > 0 {
			window = min(window, c)
		}
	}
	return compact.SizeRequest(window, info.MaxOutput, min(p.summaryMaxTokens(), max(p.fitPoint()/4, 256)))
}

// pruneOptions returns the session's prune thresholds (PruneThresholds).
func (p pricing) pruneOptions() prune.Options {
	return PruneThresholds(p.cfg.Compaction, p.calc.Reading())
}

// summaryEstimator prices summary requests: calibrated, but never below
// the plain estimate (a session whose provider under-reports usage must not
// make its summary requests larger).
func (p pricing) summaryEstimator() tokens.Estimator {
	return tokens.Calibrated{Estimator: p.est, Ratio: max(p.calc.Reading().Calibration, 1)}
}

// fixedTokensOf estimates the system prompt and, unless toolsOff, the
// schemas of the tools offered.
func fixedTokensOf(system []string, offered *tools.Registry, toolsOff bool, est tokens.Estimator) (systemTokens, toolTokens int64) {
	for _, s := range system {
		systemTokens += int64(est.Count(s)) + tokens.TokensPerMessage
	}
	if toolsOff {
		return systemTokens, 0
	}
	_, chars := est.(tokens.Chars)
	for _, t := range offered.Tools() {
		if chars {
			// The same count without concatenating every schema
			// (~100 KB a start): Chars counts bytes.
			toolTokens += int64(charsCount(len(t.Name())+len(t.Description())+len(t.Parameters()))) + 8
			continue
		}
		toolTokens += int64(est.Count(t.Name()+t.Description()+string(t.Parameters()))) + 8
	}
	return systemTokens, toolTokens
}

// charsCount is tokens.Chars' count of n bytes of text.
func charsCount(n int) int { return (n + 3) / 4 }
