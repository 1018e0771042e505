package loop

// The spending cap (agent run --max-cost, config budget): before every
// model request of the session — steps, summary requests, title requests —
// the session's cost so far plus the request's input at the model's input
// price must stay within the cap, or the request is not made. The input
// is priced in full (no cache discount) and the output not at all: the
// input is what a request is sure to cost; an answer's length is not
// known before it is written.

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// FinishBudget ends a turn stopped by the spending cap.
const FinishBudget = "budget"

// ErrBudget matches the error of a request the spending cap refused.
var ErrBudget = errors.New("budget reached")

// budgetError is a request refused by the cap: the session had cost
// spentUSD of capUSD, and the request's input would cost about nextUSD.
type budgetError struct {
	spentUSD, capUSD, nextUSD float64
}

func (e *budgetError) Error() string {
	const raise = "raise it with --max-cost or `budget`"
	if e.spentUSD >= e.capUSD {
		return fmt.Sprintf("stopped: this session has cost %s of its %s budget; %s", usd(e.spentUSD), usd(e.capUSD), raise)
	}
	return fmt.Sprintf("stopped: this session has cost %s of its %s budget and the next request would pass it (about %s of input); %s",
		usd(e.spentUSD), usd(e.capUSD), usd(e.nextUSD), raise)
}

// usd formats dollars for people: in cents from a cent up, otherwise with
// two significant digits, so that a small amount does not read as $0.00.
func usd(v float64) string {
	if v >= 0.01 || v <= 0 {
		return fmt.Sprintf("$%.2f", v)
	}
	return "$" + strconv.FormatFloat(v, 'g', 2, 64)
}

func (e *budgetError) Is(target error) bool { return target == ErrBudget }

// overBudget decides whether a request whose input costs nextUSD may not
// go out when the session has cost spentUSD of a cap of capUSD (0: none).
func overBudget(spentUSD, capUSD, nextUSD float64) bool {
	return capUSD > 0 && (spentUSD >= capUSD || spentUSD+nextUSD > capUSD)
}

// SetBudget changes the session's spending cap (USD; 0 removes it), as a
// user raising it after a stop does.
func (r *Runner) SetBudget(usd float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opt.MaxCostUSD = max(usd, 0)
	r.budgetUnpriced = false
}

// Budget is the session's spending cap in USD, 0 when none.
func (r *Runner) Budget() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.opt.MaxCostUSD
}

// checkBudget returns an ErrBudget error when a request to model with
// about inputTokens of input must not be made. A model without a price
// cannot be held to the cap: that is said once, and the request goes out.
func (r *Runner) checkBudget(model string, inputTokens int64) error {
	info, _ := r.opt.Config.ModelInfo(model)
	r.mu.Lock()
	capUSD, spent := r.opt.MaxCostUSD, r.sess.CostUSD
	unpriced := capUSD > 0 && info.Price.Input == 0 && info.Price.Output == 0
	tell := unpriced && !r.budgetUnpriced
	if tell {
		r.budgetUnpriced = true
	}
	r.mu.Unlock()
	if tell {
		r.emit(message.Event{Type: message.EventNote, SessionID: r.sess.ID, Note: fmt.Sprintf(
			"the budget of %s cannot be enforced: model %s has no price; set models.%s.price in your config",
			usd(capUSD), model, model)})
	}
	if unpriced {
		return nil
	}
	next := float64(inputTokens) * info.Price.Input / 1e6
	if !overBudget(spent, capUSD, next) {
		return nil
	}
	return &budgetError{spentUSD: spent, capUSD: capUSD, nextUSD: next}
}

// messagesEstimate counts the input of a tool-less request at four bytes
// a token (not r.est: the title request runs beside SetModel).
func (r *Runner) messagesEstimate(req provider.Request) int64 {
	var n int64
	for _, m := range req.Messages {
		n += int64(tokens.Chars{}.Count(m.Content)) + tokens.TokensPerMessage
	}
	return n
}
