package compact

import (
	"fmt"
	"math"

	"github.com/ctxloop/agent/internal/context/tokens"
)

// Strategy names, as in the config's compaction.strategy.
const (
	StrategyOverflow  = "overflow"
	StrategyThreshold = "threshold"
	StrategyManual    = "manual"
)

// Reasons of a compaction, as stored in message.CompactionState.Reason.
const (
	ReasonOverflow     = "overflow"
	ReasonThreshold    = "threshold"
	ReasonContextError = "context_error"
	ReasonManual       = "manual"
	// ReasonProviderLimit: the request passed the compaction point that
	// a provider's context-length error lowered (LowerPoint).
	ReasonProviderLimit = "provider_limit"
)

// EmergencyLabel names a compaction the provider forced by refusing a
// request for its size (message.CompactionState.Emergency). It runs even
// with compaction.auto off, and every surface labels it with these words.
const EmergencyLabel = "emergency compaction: the provider refused the request for its size"

// Decide reports whether to compact now, and why: when the strategy says
// so, or when the total passes s.CompactAt, which the caller may have
// lowered below the strategy's point after a provider refused a request
// (LowerPoint). The caller may also raise s.Total to its own count of the
// request when a provider's usage reports less.
func Decide(st Strategy, s tokens.Reading) (bool, string) {
	if ok, reason := st.ShouldCompact(s); ok {
		return true, reason
	}
	if s.CompactAt > 0 && s.Total > s.CompactAt {
		return true, ReasonProviderLimit
	}
	return false, ""
}

// DefaultThreshold is the fraction of the window of the threshold strategy.
const DefaultThreshold = 0.8

// Strategy decides when to compact automatically, from the calculator's
// reading only.
type Strategy interface {
	// Name is the strategy's config name.
	Name() string
	// ShouldCompact reports whether to compact now, and why (a Reason).
	ShouldCompact(s tokens.Reading) (bool, string)
	// CompactAt is the total above which it compacts; 0 means never
	// automatically. Pass it as tokens.Options.CompactAt for display.
	CompactAt(window, reserve int64) int64
}

// NewStrategy returns the strategy named in the config: "overflow" (the
// default, also for ""), "threshold" (threshold is a fraction of the window
// in (0, 1]; 0 means DefaultThreshold) or "manual".
func NewStrategy(name string, threshold float64) (Strategy, error) {
	switch name {
	case "", StrategyOverflow:
		return Overflow{}, nil
	case StrategyThreshold:
		if threshold == 0 {
			threshold = DefaultThreshold
		}
		if !(threshold > 0 && threshold <= 1) {
			return nil, fmt.Errorf("compaction strategy threshold: %v is not a fraction of the window in (0, 1]", threshold)
		}
		return Threshold{Fraction: threshold}, nil
	case StrategyManual:
		return Manual{}, nil
	}
	return nil, fmt.Errorf("compaction strategy %q: unknown (want %s, %s or %s)",
		name, StrategyOverflow, StrategyThreshold, StrategyManual)
}

// Overflow compacts when the next request would eat into the output
// reserve: total > window − reserve.
type Overflow struct{}

// Name returns "overflow".
func (Overflow) Name() string { return StrategyOverflow }

// CompactAt returns window − reserve.
func (Overflow) CompactAt(window, reserve int64) int64 { return max(window-reserve, 0) }

// ShouldCompact reports total > window − reserve.
func (o Overflow) ShouldCompact(s tokens.Reading) (bool, string) {
	if s.Window <= 0 {
		return false, ""
	}
	if s.Total > o.CompactAt(s.Window, s.OutputReserve) {
		return true, ReasonOverflow
	}
	return false, ""
}

// Threshold compacts once a fraction of the window is used, and never later
// than Overflow would: total > min(Fraction × window, window − reserve).
type Threshold struct {
	Fraction float64
}

// Name returns "threshold".
func (Threshold) Name() string { return StrategyThreshold }

// CompactAt returns min(Fraction × window, window − reserve).
func (t Threshold) CompactAt(window, reserve int64) int64 {
	return min(t.point(window), Overflow{}.CompactAt(window, reserve))
}

func (t Threshold) point(window int64) int64 {
	return int64(math.Round(t.Fraction * float64(window)))
}

// ShouldCompact reports total > CompactAt, with the reason "threshold", or
// "overflow" when the reserve comes first.
func (t Threshold) ShouldCompact(s tokens.Reading) (bool, string) {
	if s.Window <= 0 {
		return false, ""
	}
	if s.Total <= t.CompactAt(s.Window, s.OutputReserve) {
		return false, ""
	}
	if t.point(s.Window) > (Overflow{}).CompactAt(s.Window, s.OutputReserve) {
		return true, ReasonOverflow
	}
	return true, ReasonThreshold
}

// Manual never compacts automatically: only /compact, `agent compact` and a
// context-length error from the provider do.
type Manual struct{}

// Name returns "manual".
func (Manual) Name() string { return StrategyManual }

// CompactAt returns 0: never.
func (Manual) CompactAt(window, reserve int64) int64 { return 0 }

// ShouldCompact returns false.
func (Manual) ShouldCompact(tokens.Reading) (bool, string) { return false, "" }
