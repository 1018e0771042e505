package tokens

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// Usage objects of real recorded streams (../shared/fixtures/providers),
// as the provider package normalises them.
var (
	// crush/openai-gpt-5__parallel_tool_calls__1.sse: prompt_tokens 6395
	// (cached_tokens 3456 included), completion_tokens 630 (reasoning_tokens
	// 576 included).
	usageGPT5 = message.Usage{Input: 6395, Output: 630, Reasoning: 576, CachedInput: 3456}
	// crush/openai-gpt-5__parallel_tool_calls__2.sse: the next step.
	usageGPT5Next = message.Usage{Input: 6512, Output: 29, CachedInput: 6272}
	// vercel-ai/openai-compatible__xai-tool-call.chunks.txt: prompt 307
	// (cached 306), completion 26 excluding reasoning 227 → normalised
	// output 253.
	usageGrok = message.Usage{Input: 307, Output: 253, Reasoning: 227, CachedInput: 306}
)

// text returns a text that Chars counts as n tokens.
func text(n int) string { return strings.Repeat("abcd", n) }

func TestCalculator(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	type want struct {
		total, lastInput, lastOutput, newEstimate int64
		basis                                     Basis
		breakdown                                 *Breakdown
		window, reserve, free, compactAt          int64
		estimateError                             *float64 // checked when set
		noEstimateError                           bool
		warnings                                  []string
	}
	tests := []struct {
		name string
		opt  Options
		ops  func(c *Calculator)
		want want
	}{
		{
			name: "estimated before any call",
			opt:  Options{Window: 128000, MaxOutput: 16384},
			ops: func(c *Calculator) {
				c.SetFixed(1000, 2000)
				c.AddText(text(100))
			},
			want: want{total: 3100, newEstimate: 100, basis: BasisEstimated,
				breakdown: &Breakdown{System: 1000, Tools: 2000, Messages: 100}, noEstimateError: true},
		},
		{
			name: "cached tokens are not added twice and unsent reasoning is subtracted (gpt-5)",
			opt:  Options{Window: 400000, MaxOutput: 128000},
			ops:  func(c *Calculator) { c.Observe(usageGPT5, 6000) },
			want: want{total: 6395 + 54, lastInput: 6395, lastOutput: 54, basis: BasisActual,
				estimateError: f((6000.0 - 6395) / 6395)},
		},
		{
			name: "reasoning kept when it is sent back (gpt-5)",
			opt:  Options{Window: 400000, ReasoningRoundtrip: true},
			ops:  func(c *Calculator) { c.Observe(usageGPT5, 6000) },
			want: want{total: 6395 + 630, lastInput: 6395, lastOutput: 630, basis: BasisActual},
		},
		{
			name: "xAI normalised output 253 minus reasoning 227",
			opt:  Options{Window: 131072},
			ops:  func(c *Calculator) { c.Observe(usageGrok, 300) },
			want: want{total: 307 + 26, lastInput: 307, lastOutput: 26, basis: BasisActual},
		},
		{
			name: "xAI with reasoning sent back",
			opt:  Options{Window: 131072, ReasoningRoundtrip: true},
			ops:  func(c *Calculator) { c.Observe(usageGrok, 300) },
			want: want{total: 560, lastInput: 307, lastOutput: 253, basis: BasisActual},
		},
		{
			name: "last step only, never cumulative",
			opt:  Options{Window: 400000},
			ops: func(c *Calculator) {
				c.Observe(usageGPT5, 0)
				c.AddText(text(100))
				c.Observe(usageGPT5Next, 0)
			},
			want: want{total: 6512 + 29, lastInput: 6512, lastOutput: 29, basis: BasisActual},
		},
		{
			name: "text added after the call is estimated on top",
			opt:  Options{Window: 400000},
			ops: func(c *Calculator) {
				c.Observe(usageGPT5, 0)
				c.AddText(text(100))
				c.AddText(text(20))
				c.AddTokens(TokensPerMessage)
			},
			want: want{total: 6449 + 124, lastInput: 6395, lastOutput: 54, newEstimate: 124, basis: BasisActual},
		},
		{
			name: "a prune takes tokens away",
			opt:  Options{Window: 400000},
			ops: func(c *Calculator) {
				c.Observe(usageGPT5, 0)
				c.AddTokens(-2000)
			},
			want: want{total: 4449, newEstimate: -2000, lastInput: 6395, lastOutput: 54, basis: BasisActual},
		},
		{
			name: "reset after a compaction: pure estimate",
			opt:  Options{Window: 400000},
			ops: func(c *Calculator) {
				c.SetFixed(1000, 2000)
				c.Observe(usageGPT5, 6000)
				c.AddText(text(100))
				c.Reset(5000)
			},
			want: want{total: 8000, newEstimate: 5000, basis: BasisEstimated,
				breakdown: &Breakdown{System: 1000, Tools: 2000, Messages: 5000}, estimateError: f((6000.0 - 6395) / 6395)},
		},
		{
			name: "observe after reset anchors again",
			opt:  Options{Window: 400000},
			ops: func(c *Calculator) {
				c.SetFixed(1000, 2000)
				c.Reset(5000)
				c.Observe(message.Usage{Input: 7000, Output: 100}, 8000)
			},
			want: want{total: 7100, lastInput: 7000, lastOutput: 100, basis: BasisActual,
				breakdown: &Breakdown{System: 1000, Tools: 2000, Messages: 4100}, estimateError: f(1000.0 / 7000)},
		},
		{
			name: "breakdown adds up",
			opt:  Options{Window: 400000},
			ops: func(c *Calculator) {
				c.SetFixed(1000, 2000)
				c.Observe(usageGPT5, 0)
			},
			want: want{total: 6449, lastInput: 6395, lastOutput: 54, basis: BasisActual,
				breakdown: &Breakdown{System: 1000, Tools: 2000, Messages: 3449}},
		},
		{
			name: "messages back-calculated negative are floored with a warning",
			opt:  Options{Window: 400000},
			ops: func(c *Calculator) {
				c.SetFixed(5000, 3000)
				c.Observe(message.Usage{Input: 6000, Output: 10}, 0)
			},
			want: want{total: 6010, lastInput: 6000, lastOutput: 10, basis: BasisActual,
				breakdown: &Breakdown{System: 5000, Tools: 3000, Messages: 0}, warnings: []string{WarnMessagesNegative}},
		},
		{
			name: "free and reserve",
			opt:  Options{Window: 128000, MaxOutput: 16384},
			ops:  func(c *Calculator) { c.Observe(usageGPT5, 0) },
			want: want{total: 6449, lastInput: 6395, lastOutput: 54, basis: BasisActual,
				window: 128000, reserve: 16384, free: 128000 - 6449 - 16384, compactAt: 128000 - 16384},
		},
		{
			name: "reserve capped at 32K",
			opt:  Options{Window: 1047576, MaxOutput: 100000},
			ops:  func(c *Calculator) {},
			want: want{basis: BasisEstimated, window: 1047576, reserve: 32000, free: 1047576 - 32000, compactAt: 1047576 - 32000},
		},
		{
			name: "unknown max output reserves the cap",
			opt:  Options{Window: 200000, ReserveCap: 20000},
			ops:  func(c *Calculator) {},
			want: want{basis: BasisEstimated, window: 200000, reserve: 20000, free: 180000, compactAt: 180000},
		},
		{
			name: "reserve at most a quarter of the window",
			opt:  Options{Window: 32768, MaxOutput: 32768},
			ops:  func(c *Calculator) {},
			want: want{basis: BasisEstimated, window: 32768, reserve: 8192, free: 32768 - 8192, compactAt: 32768 - 8192},
		},
		{
			name: "free floors at 0, total stays honest",
			opt:  Options{Window: 10000, MaxOutput: 2000},
			ops:  func(c *Calculator) { c.Observe(message.Usage{Input: 9500, Output: 300}, 0) },
			want: want{total: 9800, lastInput: 9500, lastOutput: 300, basis: BasisActual,
				window: 10000, reserve: 2000, free: 0, compactAt: 8000},
		},
		{
			name: "unknown window uses the default and says so",
			opt:  Options{},
			ops:  func(c *Calculator) { c.AddText(text(1000)) },
			want: want{total: 1000, newEstimate: 1000, basis: BasisEstimated,
				window: DefaultWindow, reserve: DefaultWindow / 4, free: DefaultWindow - 1000 - DefaultWindow/4,
				compactAt: DefaultWindow - DefaultWindow/4, warnings: []string{WarnUnknownWindow}},
		},
		{
			name: "compaction point from the strategy",
			opt: Options{Window: 100000, MaxOutput: 10000,
				CompactAt: func(w, r int64) int64 { return w * 8 / 10 }},
			ops:  func(c *Calculator) {},
			want: want{basis: BasisEstimated, window: 100000, reserve: 10000, free: 90000, compactAt: 80000},
		},
		{
			name: "estimate error over",
			opt:  Options{Window: 100000},
			ops:  func(c *Calculator) { c.Observe(message.Usage{Input: 1000}, 1100) },
			want: want{total: 1000, lastInput: 1000, basis: BasisActual, estimateError: f(0.1)},
		},
		{
			name: "estimate error under",
			opt:  Options{Window: 100000},
			ops:  func(c *Calculator) { c.Observe(message.Usage{Input: 1000}, 900) },
			want: want{total: 1000, lastInput: 1000, basis: BasisActual, estimateError: f(-0.1)},
		},
		{
			name: "estimate error defaults to the calculator's own total",
			opt:  Options{Window: 100000},
			ops: func(c *Calculator) {
				c.SetFixed(500, 500)
				c.AddText(text(200)) // total 1200 before the call
				c.Observe(message.Usage{Input: 1000}, 0)
			},
			want: want{total: 1000, lastInput: 1000, basis: BasisActual, estimateError: f(0.2)},
		},
		{
			name: "provider sends no usage: estimates carry on and say so",
			opt:  Options{Window: 100000},
			ops: func(c *Calculator) {
				c.SetFixed(100, 200)
				c.AddText(text(100)) // user message
				c.ObserveNoUsage()
				c.AddText(text(200)) // the assistant's answer
				c.Observe(message.Usage{}, 0)
				c.AddText(text(50))
			},
			want: want{total: 650, newEstimate: 350, basis: BasisEstimated, noEstimateError: true,
				warnings: []string{WarnNoUsage}},
		},
		{
			name: "no usage after an anchored call",
			opt:  Options{Window: 100000},
			ops: func(c *Calculator) {
				c.Observe(message.Usage{Input: 1000, Output: 100}, 0)
				c.AddText(text(50))
				c.ObserveNoUsage()
				c.AddText(text(30))
			},
			want: want{total: 1180, lastInput: 1000, lastOutput: 100, newEstimate: 80,
				basis: BasisEstimated, noEstimateError: true, warnings: []string{WarnNoUsage}},
		},
		{
			name: "usage again clears the no-usage warning",
			opt:  Options{Window: 100000},
			ops: func(c *Calculator) {
				c.ObserveNoUsage()
				c.Observe(message.Usage{Input: 1000, Output: 100}, 1000)
			},
			want: want{total: 1100, lastInput: 1000, lastOutput: 100, basis: BasisActual, estimateError: f(0)},
		},
		{
			name: "a changed system prompt shifts an anchored total",
			opt:  Options{Window: 100000},
			ops: func(c *Calculator) {
				c.SetFixed(1000, 2000)
				c.Observe(message.Usage{Input: 5000, Output: 100}, 5000)
				c.SetFixed(1500, 1800)
			},
			want: want{total: 5400, lastInput: 5000, lastOutput: 100, newEstimate: 300,
				basis: BasisActual, breakdown: &Breakdown{System: 1500, Tools: 1800, Messages: 2100}, estimateError: f(0)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCalculator(tt.opt, Chars{})
			tt.ops(c)
			s := c.Reading()
			w := tt.want
			check := func(field string, got, want int64) {
				t.Helper()
				if got != want {
					t.Errorf("%s = %d, want %d", field, got, want)
				}
			}
			check("Total", s.Total, w.total)
			check("LastInput", s.LastInput, w.lastInput)
			check("LastOutput", s.LastOutput, w.lastOutput)
			check("NewEstimate", s.NewEstimate, w.newEstimate)
			if s.Basis != w.basis {
				t.Errorf("Basis = %q, want %q", s.Basis, w.basis)
			}
			if w.breakdown != nil && s.Breakdown != *w.breakdown {
				t.Errorf("Breakdown = %+v, want %+v", s.Breakdown, *w.breakdown)
			}
			if s.Breakdown.Messages > 0 && s.Breakdown.System+s.Breakdown.Tools+s.Breakdown.Messages != s.Total {
				t.Errorf("Breakdown %+v does not add up to %d", s.Breakdown, s.Total)
			}
			if w.window != 0 {
				check("Window", s.Window, w.window)
				check("OutputReserve", s.OutputReserve, w.reserve)
				check("Free", s.Free, w.free)
				check("CompactAt", s.CompactAt, w.compactAt)
			}
			switch {
			case w.noEstimateError && s.EstimateError != nil:
				t.Errorf("EstimateError = %v, want nil", *s.EstimateError)
			case w.estimateError != nil && s.EstimateError == nil:
				t.Errorf("EstimateError = nil, want %v", *w.estimateError)
			case w.estimateError != nil && !approx(*s.EstimateError, *w.estimateError):
				t.Errorf("EstimateError = %v, want %v", *s.EstimateError, *w.estimateError)
			}
			if !slices.Equal(s.Warnings, w.warnings) {
				t.Errorf("Warnings = %q, want %q", s.Warnings, w.warnings)
			}
		})
	}
}

func TestCalculatorCalibration(t *testing.T) {
	tests := []struct {
		name      string
		added     int64 // raw tokens of text added between the calls
		actual    int64 // what the call reports for that text
		wantRatio float64
	}{
		{"underestimate learns upwards", 1000, 1500, 1.15},
		{"overestimate learns downwards", 1000, 800, 0.94},
		{"outlier clamped to 2", 1000, 5000, 1.3},
		{"a small delta teaches nothing", 200, 400, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCalculator(Options{Window: 200000}, Chars{})
			c.Observe(message.Usage{Input: 10000, Output: 200}, 0)
			c.AddText(text(int(tt.added)))
			c.AddTokens(4) // exact tokens are not the estimator's error
			c.Observe(message.Usage{Input: 10200 + tt.actual + 4, Output: 100}, 0)
			s := c.Reading()
			if !approx(s.Calibration, tt.wantRatio) {
				t.Fatalf("Calibration = %v, want %v", s.Calibration, tt.wantRatio)
			}
			// New text is estimated with the learnt ratio.
			want := int64(scale(100, tt.wantRatio))
			if got := c.AddText(text(100)); got != want {
				t.Errorf("AddText(100 raw tokens) = %d, want %d", got, want)
			}
			if got := c.Estimator().Count(text(100)); int64(got) != want {
				t.Errorf("Estimator().Count(100 raw tokens) = %d, want %d", got, want)
			}
		})
	}
}

// Calibration learns only on top of a real anchor: the first call (system
// prompt and tool schemas) and the first call after a reset teach nothing.
func TestCalculatorCalibrationNeedsAnAnchor(t *testing.T) {
	c := NewCalculator(Options{Window: 200000}, Chars{})
	c.SetFixed(2000, 4000)
	c.AddText(text(1000))
	c.Observe(message.Usage{Input: 14000}, 0)
	c.Reset(3000)
	c.Observe(message.Usage{Input: 18000}, 0)
	if got := c.Reading().Calibration; got != 1 {
		t.Errorf("Calibration = %v after unanchored calls, want 1", got)
	}
}

func TestCalculatorLogsEstimateAgainstActual(t *testing.T) {
	c := NewCalculator(Options{Window: 100000}, Chars{})
	var logged [][2]int64
	c.SetLogger(func(estimate, actual int64) {
		logged = append(logged, [2]int64{estimate, actual})
		_ = c.Reading() // the hook runs outside the lock
	})
	c.SetFixed(100, 100)
	c.Observe(message.Usage{Input: 250, Output: 10}, 0) // own total: 200
	c.AddText(text(40))
	c.Observe(message.Usage{Input: 310, Output: 10}, 305)
	c.ObserveNoUsage()
	want := [][2]int64{{200, 250}, {305, 310}}
	if !slices.Equal(logged, want) {
		t.Errorf("logged %v, want %v", logged, want)
	}
}

func TestCalculatorConcurrentReadersAndWriter(t *testing.T) {
	c := NewCalculator(Options{Window: 100000}, Chars{})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				s := c.Reading()
				if s.Total < 0 {
					panic(fmt.Sprintf("negative total %d", s.Total))
				}
			}
		}()
	}
	for i := range 200 {
		c.AddText(text(10))
		if i%20 == 0 {
			c.Observe(message.Usage{Input: int64(1000 + i), Output: 5}, 0)
		}
	}
	close(stop)
	wg.Wait()
	// Last observe at i=180 (1180+5), then 19 texts of 10 tokens.
	if got := c.Reading().Total; got != 1185+190 {
		t.Errorf("Total = %d, want %d", got, 1185+190)
	}
}
