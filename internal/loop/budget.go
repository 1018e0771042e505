package loop

// The spending cap (agent run --max-cost, config budget) is a reservation
// ledger (internal/budget) shared by the session and the subagents it
// starts (Options.Ledger, which a child takes from its Parent). Before
// every model request of the session — steps, summary requests, title
// requests — the request reserves what it can cost at most: its input at
// the model's full input price (no cache discount) plus its max_tokens at
// the output price; a request that cannot reserve is not made. When the
// request ends, its reservation settles with its cost as the session's
// totals count it (costAt), so spent means here what it means in `done`.
// A child's spending settles in the shared ledger as it happens; the
// parent adds it to its own totals only when the task result arrives
// (child.go), and never to the ledger a second time.

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/ctxloop/agent/internal/budget"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// FinishBudget ends a turn stopped by the spending cap.
const FinishBudget = "budget"

// ErrBudget matches the error of a request the spending cap refused.
var ErrBudget = budget.ErrRefused

// budgetError is a request refused by the cap, with the ledger's figures
// and the request's: about inputUSD of input and up to outputUSD of output.
type budgetError struct {
	budget.RefusedError
	inputUSD, outputUSD float64
	hint                string // Options.BudgetHint
}

func (e *budgetError) Error() string {
	// How to raise the cap is the front end's to say (Options.BudgetHint):
	// /budget in the chat, --max-cost for agent run.
	raise := e.hint
	if raise == "" {
		raise = "raise the budget to go on"
	}
	held := fmt.Sprintf("%s reserved by requests in flight", usd(e.ReservedUSD))
	if e.SpentUSD >= e.CapUSD {
		return fmt.Sprintf("stopped: this session has cost %s of its %s budget (%s); %s",
			usd(e.SpentUSD), usd(e.CapUSD), held, raise)
	}
	return fmt.Sprintf("stopped: this session has cost %s of its %s budget, with %s, and the next request "+
		"would pass it (it reserves %s: about %s of input and up to %s of output); %s",
		usd(e.SpentUSD), usd(e.CapUSD), held, usd(e.RequestUSD), usd(e.inputUSD), usd(e.outputUSD), raise)
}

// usd formats dollars for people: in cents from a cent up, otherwise with
// two significant digits, so that a small amount does not read as $0.00.
func usd(v float64) string {
	if v >= 0.01 || v <= 0 {
		return fmt.Sprintf("$%.2f", v)
	}
	return "$" + strconv.FormatFloat(v, 'g', 2, 64)
}

// SetBudget changes the session's spending cap (USD; 0 removes it), as a
// user raising it after a stop does. A subagent shares its parent's cap.
func (r *Runner) SetBudget(usd float64) { r.stepper.setBudget(usd) }

// Budget is the session's spending cap in USD, 0 when none.
func (r *Runner) Budget() float64 { return r.opt.Ledger.Cap() }

// reserve holds the cap for a request to model with about inputTokens of
// input and up to maxTokens of output, or returns an ErrBudget error when
// the request must not be made. reserveOutput is reserve for a request
// whose output cap may shrink to what the cap can still pay for, down to
// minTokens; it returns the output cap to send. A maxTokens of 0 (a request that sends no
// max_tokens) reserves the model's max_output from the config or the
// catalog: what the provider may write then. A model without a price
// cannot be held to the cap: that is said once, and the request goes out
// (agent run refuses --max-cost for it before it starts).
func (sp *stepper) reserve(model string, inputTokens, maxTokens int64) (*budget.Reservation, error) {
	held, _, err := sp.reserveOutput(model, inputTokens, maxTokens, maxTokens)
	return held, err
}

func (sp *stepper) reserveOutput(model string, inputTokens, maxTokens, minTokens int64) (*budget.Reservation, int64, error) {
	return sp.reserveCached(model, inputTokens, 0, maxTokens, minTokens)
}

// reserveCached is reserveOutput for a request of which cachedTokens of
// the input are expected to be read from the provider's cache (the prefix
// unchanged since the last request: cachedTokens): those are priced at
// the model's cache-read price (its input price when it has none), the
// rest at the input price.
func (sp *stepper) reserveCached(model string, inputTokens, cachedTokens, maxTokens, minTokens int64) (*budget.Reservation, int64, error) {
	info, _ := sp.opt.Config.ModelInfo(model)
	capUSD := sp.opt.Ledger.Cap()
	unpriced := capUSD > 0 && !info.Price.Known()
	sp.mu.Lock()
	tell := unpriced && !sp.budgetUnpriced
	if tell {
		sp.budgetUnpriced = true
	}
	sp.mu.Unlock()
	if tell {
		sp.emit(message.Event{Type: message.EventNote, SessionID: sp.sessionID, Note: fmt.Sprintf(
			"the budget of %s cannot be enforced: model %s has no price; set models.%s.price in your config",
			usd(capUSD), model, model)})
	}
	if maxTokens <= 0 {
		maxTokens = info.MaxOutput
	}
	if minTokens <= 0 || minTokens > maxTokens {
		minTokens = maxTokens
	}
	in := inputCostUSD(info.Price, inputTokens, cachedTokens)
	perToken := info.Price.Output / 1e6
	res, n, err := sp.opt.Ledger.ReserveUpTo(in, perToken, minTokens, maxTokens)
	var refused *budget.RefusedError
	if errors.As(err, &refused) {
		return nil, 0, &budgetError{RefusedError: *refused, inputUSD: in, outputUSD: float64(minTokens) * perToken, hint: sp.opt.BudgetHint}
	}
	return res, n, err
}

// inputCostUSD prices inputTokens of input of which cachedTokens are
// read from the cache, at prices p (USD per million tokens); a model
// without a cache-read price pays its input price for them.
func inputCostUSD(p config.Price, inputTokens, cachedTokens int64) float64 {
	cachedTokens = max(0, min(cachedTokens, inputTokens))
	read := p.CacheRead
	if read <= 0 {
		read = p.Input
	}
	return (float64(inputTokens-cachedTokens)*p.Input + float64(cachedTokens)*read) / 1e6
}

// cachedTokens is the part of inputTokens expected from the cache: share
// (of the request's bytes) of them, rounded down.
func cachedTokens(inputTokens int64, share float64) int64 {
	if share <= 0 {
		return 0
	}
	return int64(float64(inputTokens) * min(share, 1))
}

// messagesEstimate counts the input of a tool-less request at four bytes
// a token (not r.est: the title request runs beside SetModel).
func messagesEstimate(req provider.Request) int64 {
	var n int64
	for _, m := range req.Messages {
		n += int64(tokens.Chars{}.Count(m.Content)) + tokens.TokensPerMessage
	}
	return n
}

// minBudgetOutputTokens is the least output a step's request may be given
// when the cap cannot pay for the model's whole max_output: a step cut
// shorter than this would mostly end at its length limit, paid for and
// useless, so below it the request is refused instead.
const minBudgetOutputTokens = 4096
