package tokens

// The calculator is the one place that computes how many tokens the next
// request will carry. It is incremental: the loop tells it what happened
// (a call's usage, text added, history rewritten) and Reading answers in
// O(1) without reading the session.

import (
	"fmt"
	"sync"

	"github.com/ctxloop/agent/internal/message"
)

// Basis says whether a total is anchored on a provider's reported usage.
type Basis string

// The bases of a total.
const (
	// BasisActual: the last call's reported usage plus estimates of what
	// was added since.
	BasisActual Basis = "actual"
	// BasisEstimated: no usable call since the history was (re)built, or
	// the provider sent no usage; everything is estimated.
	BasisEstimated Basis = "estimated"
)

// Defaults for model limits the catalog does not know.
const (
	// DefaultWindow is the context window assumed for an unknown model:
	// small on purpose, so an unknown model compacts early rather than
	// failing with a context-length error.
	DefaultWindow int64 = 32000
	// DefaultReserveCap caps the output reserve.
	DefaultReserveCap int64 = 32000
)

// Warnings a Reading may carry.
const (
	WarnNoUsage          = "provider sent no usage; estimated"
	WarnMessagesNegative = "messages back-calculated negative; floored at 0"
)

// WarnUnknownWindow is the warning for a model without a known window.
var WarnUnknownWindow = fmt.Sprintf("unknown model window; using default %d", DefaultWindow)

// Breakdown splits a total for display. System and Tools are estimates;
// Messages is back-calculated so the three add up to the total.
type Breakdown struct {
	System   int64 `json:"system"`
	Tools    int64 `json:"tools"`
	Messages int64 `json:"messages"`
	// Pins estimates the facts the user pinned (sent after the summary).
	Pins int64 `json:"pins"`
	// Todo estimates the model's todo list when a compaction took the
	// todo_write that wrote it out of the messages (it is then sent after
	// the pins); 0 while the call itself is sent.
	Todo int64 `json:"todo"`
	// Reasoning is the part of Messages that is reasoning sent back to a
	// model that takes it (0 for the others; rows.go).
	Reasoning int64 `json:"reasoning"`
	// PromptLines are named lines of the system prompt (part of System),
	// so /context can say what a feature's guidance costs.
	PromptLines PromptLines `json:"prompt_lines"`
}

// PromptLines estimates the named lines of the system prompt, one field
// each (comparable, like the rest of a Breakdown).
type PromptLines struct {
	// Todo is the line on keeping a todo list (todo_write).
	Todo int64 `json:"todo"`
	// Memory is the memory section: how many memories the session can
	// search, and the pinned ones (internal/memory).
	Memory int64 `json:"memory"`
	// Skills is the list of skills (internal/skills), a system message
	// of its own.
	Skills int64 `json:"skills"`
}

// PromptLine is one named line of the system prompt and its estimate.
type PromptLine struct {
	Name   string
	Tokens int64
}

// Named lists the lines the prompt has (estimate > 0), in a fixed order.
func (p PromptLines) Named() []PromptLine {
	var out []PromptLine
	if p.Todo > 0 {
		out = append(out, PromptLine{"todo list", p.Todo})
	}
	if p.Memory > 0 {
		out = append(out, PromptLine{"memory", p.Memory})
	}
	if p.Skills > 0 {
		out = append(out, PromptLine{"skills", p.Skills})
	}
	return out
}

// Reading is the calculator's figures at one moment: the context's size
// and what it is made of, against the model's limits. Its JSON form is the
// output of `agent context --json`. (A "snapshot", in this program, is a
// copy of the working directory's files: package snapshot.)
type Reading struct {
	// Total is the size of the next request: lastInput + lastOutput +
	// NewEstimate (actual basis) or system + tools + NewEstimate
	// (estimated basis).
	Total int64 `json:"total"`
	Basis Basis `json:"basis"`
	// Window is the model's context window (DefaultWindow when unknown).
	Window int64 `json:"window"`
	// OutputReserve is kept free for the reply: min(max output, reserve
	// cap, window/4).
	OutputReserve int64 `json:"output_reserve"`
	// Free is Window − Total − OutputReserve (or InputLimit − Total when
	// that is less), floored at 0 (Total is not).
	Free int64 `json:"free"`
	// LastInput and LastOutput are the last call's usage (output without
	// reasoning that is not sent back); 0 when the basis is estimated
	// after a rewrite.
	LastInput  int64 `json:"last_input"`
	LastOutput int64 `json:"last_output"`
	// NewEstimate is the estimate of what was added since the last call
	// (in estimated basis: of the whole history).
	NewEstimate int64 `json:"new_estimate"`
	// EstimateError is (estimate − actual)/actual of the last call, nil
	// before any call with usage.
	EstimateError *float64 `json:"estimate_error"`
	// Calibration is the ratio actual/estimate applied to new text.
	Calibration float64   `json:"calibration"`
	Breakdown   Breakdown `json:"breakdown"`
	// Labels says how the total and each row of the breakdown were
	// obtained: actual, estimated or back-calculated (rows.go).
	Labels   Labels   `json:"labels"`
	Warnings []string `json:"warnings,omitempty"`
	// CompactAt is the total above which automatic compaction triggers
	// under the configured strategy; 0 means never automatically.
	CompactAt int64 `json:"compact_at"`
	// InputLimit is the model's cap on a request's input tokens when it
	// is below the window (nil when unknown): requests are then kept
	// within min(Window − OutputReserve, InputLimit), and Free counts the
	// room below that.
	InputLimit *int64 `json:"input_limit"`
	// UsageSuspect is set when the last call's reported input was
	// implausible (SuspectReport): ReportedInput is that report and
	// RequestEstimate our count of the same request. The total is then
	// estimated and does not use the report (usagesanity.go).
	UsageSuspect    bool  `json:"usage_suspect"`
	ReportedInput   int64 `json:"reported_input,omitempty"`
	RequestEstimate int64 `json:"request_estimate,omitempty"`
}

// Usable is the most a request may carry: min(Window − OutputReserve,
// InputLimit).
func (s Reading) Usable() int64 {
	return usable(s.Window, s.OutputReserve, s.InputLimit)
}

// CompactionWindow is the window as a compaction strategy sees it: the
// model's, or less when the input limit leaves less room (Usable +
// OutputReserve). A strategy's point and margin (window − reserve, a
// fraction of the window) apply to it.
func (s Reading) CompactionWindow() int64 { return s.Usable() + s.OutputReserve }

func usable(window, reserve int64, inputLimit *int64) int64 {
	u := max(window-reserve, 0)
	if inputLimit != nil && *inputLimit > 0 {
		u = min(u, *inputLimit)
	}
	return u
}

// Options are a model's limits and how its calls are counted.
type Options struct {
	// Window and MaxOutput are the model's limits; 0 means unknown. An
	// unknown window is DefaultWindow, with a warning in every Reading.
	Window, MaxOutput int64
	// InputLimit caps a request's input tokens (0: none beyond the
	// window). The compaction point is then taken on the window the cap
	// leaves: min(Window, InputLimit + reserve).
	InputLimit int64
	// ReserveCap caps the output reserve (DefaultReserveCap when 0). The
	// reserve is min(MaxOutput, ReserveCap), or ReserveCap when MaxOutput
	// is unknown, and never more than a quarter of the window: a reserve
	// as large as a 32K window would leave no room for the conversation.
	ReserveCap int64
	// ReasoningRoundtrip is set when reasoning text is sent back to the
	// model; otherwise reasoning tokens are subtracted from the last
	// output.
	ReasoningRoundtrip bool
	// CompactAt gives the total at which the configured strategy compacts
	// (compact.Strategy.CompactAt), for Reading.CompactAt; nil means
	// window − reserve.
	CompactAt func(window, reserve int64) int64
}

// Calculator tracks a session's context size. It is safe for concurrent use:
// the TUI reads while the loop writes.
type Calculator struct {
	est       Estimator
	roundtrip bool
	window    int64
	reserve   int64
	compactAt int64
	inLimit   *int64 // nil: none
	unknown   bool   // window not known

	mu sync.Mutex
	// system and tools are the estimates of the system prompt and the tool
	// schemas.
	system, tools int64
	// verbatim are the estimates of what requests carry word for word
	// after the summary: the pinned facts, and the todo list.
	verbatim verbatimRows
	// reasoning is the reasoning row (SetReasoning), part of the messages.
	reasoning int64
	// hasActual: lastInput/lastOutput come from a real call since the
	// history was last rebuilt.
	hasActual bool
	noUsage   bool // a call finished without usage since
	// suspect: the last call's report was implausible (SuspectReport);
	// reported and reqEst are the report and our count of the request.
	suspect               bool
	reported, reqEst      int64
	lastInput, lastOutput int64
	// added is everything counted since the anchor; addedRaw the part of
	// it that AddText estimated (before calibration), addedExact the part
	// given as exact token counts.
	added, addedRaw, addedExact int64
	estErr                      float64
	hasErr                      bool
	cal                         Calibration
	logger                      func(estimate, actual int64)
}

// verbatimRows are the rows of what requests carry word for word.
type verbatimRows struct{ pins, todo int64 }

// NewCalculator returns a calculator in estimated basis with nothing
// counted. est estimates new text (it is calibrated per session).
func NewCalculator(opt Options, est Estimator) *Calculator {
	if est == nil {
		est = Chars{}
	}
	c := &Calculator{est: est, roundtrip: opt.ReasoningRoundtrip}
	c.window = opt.Window
	if c.window <= 0 {
		c.window, c.unknown = DefaultWindow, true
	}
	c.reserve = OutputReserve(opt.MaxOutput, opt.ReserveCap, c.window)
	if opt.InputLimit > 0 {
		limit := opt.InputLimit
		c.inLimit = &limit
	}
	window := usable(c.window, c.reserve, c.inLimit) + c.reserve
	c.compactAt = window - c.reserve
	if opt.CompactAt != nil {
		c.compactAt = opt.CompactAt(window, c.reserve)
	}
	return c
}

// OutputReserve returns the tokens kept free for a reply: min(maxOutput,
// reserveCap) (reserveCap when maxOutput is unknown, DefaultReserveCap when
// reserveCap is 0), at most a quarter of the window.
func OutputReserve(maxOutput, reserveCap, window int64) int64 {
	if reserveCap <= 0 {
		reserveCap = DefaultReserveCap
	}
	r := reserveCap
	if maxOutput > 0 {
		r = min(maxOutput, reserveCap)
	}
	if window > 0 {
		r = min(r, window/4)
	}
	return r
}

// SetLogger sets a hook called after every call with usage, with the
// estimate made before the call and the actual input. It runs outside the
// calculator's lock.
func (c *Calculator) SetLogger(log func(estimate, actual int64)) {
	c.mu.Lock()
	c.logger = log
	c.mu.Unlock()
}

// SetFixed sets the estimates of the system prompt and the tool schemas.
// Once anchored on a call, a change shifts the total by the difference (the
// next request carries the new prompt).
func (c *Calculator) SetFixed(systemTokens, toolTokens int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hasActual {
		delta := systemTokens + toolTokens - c.system - c.tools
		c.added += delta
		c.addedExact += delta
	}
	c.system, c.tools = systemTokens, toolTokens
}

// SetPins sets the estimate of the session's pins, which every request
// carries. Like SetFixed, once anchored on a call a change shifts the
// total by the difference.
func (c *Calculator) SetPins(pinTokens int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hasActual {
		delta := pinTokens - c.verbatim.pins
		c.added += delta
		c.addedExact += delta
	}
	c.verbatim.pins = pinTokens
}

// SetTodo sets the estimate of the todo list sent after the pins (0:
// none). Like SetPins, once anchored on a call a change shifts the total
// by the difference.
func (c *Calculator) SetTodo(todoTokens int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hasActual {
		delta := todoTokens - c.verbatim.todo
		c.added += delta
		c.addedExact += delta
	}
	c.verbatim.todo = todoTokens
}

// InitTodo sets the estimate of the todo list right after Restore, as
// InitPins does the pins'.
func (c *Calculator) InitTodo(todoTokens int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.verbatim.todo = todoTokens
}

// InitPins sets the estimate of the pins right after Restore: an anchored
// call already carried them, so the total does not shift.
func (c *Calculator) InitPins(pinTokens int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.verbatim.pins = pinTokens
}

// Observe records the usage of a call that just finished. estimatedInput is
// the estimate made before sending it (StepState.Estimate); 0 means the
// calculator's total now. The last step's usage replaces the anchor — it is
// never accumulated: lastInput = u.Input (cached tokens are already part of
// it), lastOutput = u.Output minus u.Reasoning unless reasoning is sent
// back. The estimate error is recorded, calibration updated, and the
// logger called. A usage without input tokens counts as no usage.
func (c *Calculator) Observe(u message.Usage, estimatedInput int64) {
	c.ObserveRequest(u, estimatedInput, 0)
}

// ObserveRequest is Observe with the usage sanity check (usagesanity.go):
// requestEstimate is our own count of the request the call sent (0: no
// check). A suspect report is neither the anchor nor a calibration sample:
// the call counts as one without usage (the caller adds its output with
// AddText) and the snapshot shows the report beside the estimate.
// ObserveRequest reports whether the report was suspect.
func (c *Calculator) ObserveRequest(u message.Usage, estimatedInput, requestEstimate int64) (suspect bool) {
	if u.Input <= 0 {
		c.ObserveNoUsage()
		return false
	}
	c.mu.Lock()
	if SuspectReport(u.Input, requestEstimate) {
		c.suspect, c.reported, c.reqEst = true, u.Input, requestEstimate
		c.mu.Unlock()
		return true
	}
	if estimatedInput <= 0 {
		estimatedInput = c.totalLocked()
	}
	// Learn only from text estimated on top of a real anchor: there the
	// estimator is the only unknown. The first call's error is mostly the
	// rendering of the system prompt and tool schemas, not the estimator's.
	if c.hasActual && !c.noUsage && !c.suspect && c.addedRaw >= calibrationMinTokens {
		c.cal.Update(c.addedRaw, u.Input-c.lastInput-c.lastOutput-c.addedExact)
	}
	if estimatedInput > 0 {
		c.estErr = float64(estimatedInput-u.Input) / float64(u.Input)
		c.hasErr = true
	}
	c.lastInput = u.Input
	c.lastOutput = sentOutput(u, c.roundtrip)
	c.added, c.addedRaw, c.addedExact = 0, 0, 0
	c.hasActual, c.noUsage = true, false
	c.suspect, c.reported, c.reqEst = false, 0, 0
	log := c.logger
	c.mu.Unlock()
	if log != nil && estimatedInput > 0 {
		log(estimatedInput, u.Input)
	}
	return false
}

// sentOutput is the part of a call's output sent back with the next
// request.
func sentOutput(u message.Usage, roundtrip bool) int64 {
	out := u.Output
	if !roundtrip {
		out -= u.Reasoning
	}
	return max(out, 0)
}

// ObserveNoUsage records a call that finished without usage: the basis
// becomes estimated (with WarnNoUsage) and the estimate carries on; the
// caller then adds the call's output with AddText.
func (c *Calculator) ObserveNoUsage() {
	c.mu.Lock()
	c.noUsage = true
	c.mu.Unlock()
}

// AddText adds the calibrated estimate of text added since the last call (a
// tool output, a user message, assistant text of a call without usage) and
// returns it. Only the text is counted; add TokensPerMessage with AddTokens
// for each new chat message if wanted.
func (c *Calculator) AddText(text string) int64 {
	raw := int64(c.est.Count(text)) // outside the lock: a tokenizer may take a while
	c.mu.Lock()
	defer c.mu.Unlock()
	n := int64(scale(int(raw), c.cal.Ratio()))
	c.added += n
	c.addedRaw += raw
	return n
}

// AddTokens adds an exact number of tokens (negative to take some away, e.g.
// the TokensSaved of a prune pass).
func (c *Calculator) AddTokens(n int64) {
	c.mu.Lock()
	c.added += n
	c.addedExact += n
	c.mu.Unlock()
}

// RemoveEstimate takes away tokens counted by the session's estimator
// before calibration, such as a prune pass's TokensSaved: they are scaled by
// the calibration like any new text, since the total they come off is in
// the provider's tokens. It returns the tokens taken away.
func (c *Calculator) RemoveEstimate(raw int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := int64(scale(int(raw), c.cal.Ratio()))
	c.added -= n
	c.addedExact -= n
	return n
}

// Reset records that the history was rewritten (a compaction): the total
// becomes system + tools + historyEstimate in estimated basis until the next
// call reports usage. Pass c.EstimateEntries(VisibleHistory(h).Entries()).
func (c *Calculator) Reset(historyEstimate int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hasActual, c.noUsage = false, false
	c.suspect, c.reported, c.reqEst = false, 0, 0
	c.lastInput, c.lastOutput = 0, 0
	c.added, c.addedRaw, c.addedExact = historyEstimate, 0, 0
}

// Estimator returns the session's calibrated estimator.
func (c *Calculator) Estimator() Estimator {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Calibrated{Estimator: c.est, Ratio: c.cal.Ratio()}
}

// EstimateEntries prices entries with the calibrated estimator, counting
// reasoning when the model gets it back.
func (c *Calculator) EstimateEntries(entries []message.Entry) int64 {
	return estimateEntries(entries, c.Estimator(), c.roundtrip)
}

// Pricing is how EstimateEntries prices entries: est's counts scaled by
// ratio, reasoning counted when roundtrip (CostOf(e, est).Price(ratio,
// roundtrip) is its price of e).
func (c *Calculator) Pricing() (est Estimator, ratio float64, roundtrip bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.est, c.cal.Ratio(), c.roundtrip
}

func (c *Calculator) totalLocked() int64 {
	var t int64
	if c.hasActual {
		t = c.lastInput + c.lastOutput + c.added
	} else {
		t = c.system + c.tools + c.verbatim.pins + c.verbatim.todo + c.added
	}
	return max(t, 0)
}

// Reading returns the current figures. It is the one function that
// computes the total; it is O(1) and does no I/O.
func (c *Calculator) Reading() Reading {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := c.totalLocked()
	s := Reading{
		Total:         total,
		Basis:         BasisEstimated,
		Window:        c.window,
		OutputReserve: c.reserve,
		Free:          max(usable(c.window, c.reserve, c.inLimit)-total, 0),
		LastInput:     c.lastInput,
		LastOutput:    c.lastOutput,
		NewEstimate:   c.added,
		Calibration:   c.cal.Ratio(),
		CompactAt:     c.compactAt,
		InputLimit:    c.inLimit,
		Breakdown:     Breakdown{System: c.system, Tools: c.tools, Pins: c.verbatim.pins, Todo: c.verbatim.todo, Messages: total - c.system - c.tools - c.verbatim.pins - c.verbatim.todo},
	}
	if c.hasActual && !c.noUsage && !c.suspect {
		s.Basis = BasisActual
	}
	s.Labels = labelsOf(s.Basis, c.roundtrip)
	if c.roundtrip {
		s.Breakdown.Reasoning = min(c.reasoning, max(s.Breakdown.Messages, 0))
	}
	if c.hasErr {
		e := c.estErr
		s.EstimateError = &e
	}
	if c.unknown {
		s.Warnings = append(s.Warnings, WarnUnknownWindow)
	}
	if c.noUsage {
		s.Warnings = append(s.Warnings, WarnNoUsage)
	}
	if c.suspect {
		s.UsageSuspect, s.ReportedInput, s.RequestEstimate = true, c.reported, c.reqEst
		s.Warnings = append(s.Warnings, WarnUsageSuspect(c.reported, c.reqEst))
	}
	if s.Breakdown.Messages < 0 {
		s.Breakdown.Messages = 0
		s.Warnings = append(s.Warnings, WarnMessagesNegative)
	}
	return s
}
