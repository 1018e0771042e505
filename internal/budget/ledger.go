// Package budget is a session's spending cap as a reservation ledger
// (agent run --max-cost, config budget), shared by a session and every
// subagent it starts, so that requests running at once — parallel task
// calls, a title request beside a step — are held to one cap together.
//
// The contract:
//
//   - Before a model request goes out, its caller reserves what the
//     request can cost at most (Reserve): its input at the full input price
//     plus its max_tokens at the output price. A request that cannot
//     reserve is not made; the RefusedError says what was spent, what is
//     reserved by requests in flight and what this one needed.
//   - When the request's usage arrives, the caller settles the reservation
//     with the request's cost as the session's totals count it (cache
//     prices, a provider's reported cost); a request that failed without
//     usage settles with 0. The unused part goes back to the ledger.
//   - So Spent()+Reserved() never passes the cap through Reserve; it can
//     only pass it when a request costs more than its reservation (its input
//     was underestimated), and then every later request is refused.
//   - A cap of 0 is no cap: every reservation is granted and spending is
//     still counted. A Ledger is safe for concurrent use.
package budget

import (
	"errors"
	"sync"
)

// ErrRefused matches the error of a reservation the cap refused.
var ErrRefused = errors.New("budget reached")

// RefusedError is a reservation refused by the cap: the session had spent
// SpentUSD of CapUSD, requests in flight held ReservedUSD, and this one
// needed RequestUSD.
type RefusedError struct {
	CapUSD, SpentUSD, ReservedUSD, RequestUSD float64
}

func (e *RefusedError) Error() string { return "budget reached" }

// Is makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Ledger is the spending of one session and its subagents against a cap.
// Make it with New.
type Ledger struct {
	mu                        sync.Mutex
	capUSD, spentUSD, heldUSD float64
}

// New returns a ledger with a cap of capUSD (0: none) that has already
// spent spentUSD (a continued session's cost so far).
func New(capUSD, spentUSD float64) *Ledger {
	return &Ledger{capUSD: max(capUSD, 0), spentUSD: spentUSD}
}

// Reservation is the part of the cap one request holds until it settles.
type Reservation struct {
	l      *Ledger
	amount float64
	done   bool
}

// Reserve holds estimateUSD of the cap for a request, or returns a
// *RefusedError when spent plus reserved plus estimateUSD would pass it.
func (l *Ledger) Reserve(estimateUSD float64) (*Reservation, error) {
	estimateUSD = max(estimateUSD, 0)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.capUSD > 0 && (l.spentUSD >= l.capUSD || l.spentUSD+l.heldUSD+estimateUSD > l.capUSD) {
		return nil, &RefusedError{CapUSD: l.capUSD, SpentUSD: l.spentUSD, ReservedUSD: l.heldUSD, RequestUSD: estimateUSD}
	}
	l.heldUSD += estimateUSD
	return &Reservation{l: l, amount: estimateUSD}, nil
}

// ReserveUpTo holds fixedUSD plus as many units at unitUSD each as the cap
// leaves room for, at most maxUnits, and returns how many it holds: a
// request whose output cap can shrink to what is left (the units are its
// output tokens). It refuses with a *RefusedError, like Reserve, when
// fewer than minUnits fit. Without a cap, or at a unit price of 0, it holds
// all maxUnits.
func (l *Ledger) ReserveUpTo(fixedUSD, unitUSD float64, minUnits, maxUnits int64) (*Reservation, int64, error) {
	fixedUSD, unitUSD = max(fixedUSD, 0), max(unitUSD, 0)
	minUnits = min(max(minUnits, 0), maxUnits)
	l.mu.Lock()
	defer l.mu.Unlock()
	units := maxUnits
	if l.capUSD > 0 && unitUSD > 0 {
		left := l.capUSD - l.spentUSD - l.heldUSD - fixedUSD
		if fit := int64(left / unitUSD); fit < units {
			units = max(fit, 0)
		}
	}
	want := fixedUSD + float64(units)*unitUSD
	if l.capUSD > 0 && (units < minUnits || l.spentUSD >= l.capUSD || l.spentUSD+l.heldUSD+want > l.capUSD) {
		return nil, 0, &RefusedError{CapUSD: l.capUSD, SpentUSD: l.spentUSD, ReservedUSD: l.heldUSD,
			RequestUSD: fixedUSD + float64(minUnits)*unitUSD}
	}
	l.heldUSD += want
	return &Reservation{l: l, amount: want}, units, nil
}

// Settle ends the reservation: actualUSD is what the request cost and is
// counted as spent; the rest of the reservation is released. Only the
// first call counts; a nil Reservation settles as nothing.
func (r *Reservation) Settle(actualUSD float64) {
	if r == nil {
		return
	}
	l := r.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.done {
		return
	}
	r.done = true
	l.heldUSD = max(l.heldUSD-r.amount, 0)
	l.spentUSD += max(actualUSD, 0)
}

// Spent is what the session and its subagents have cost, in USD.
func (l *Ledger) Spent() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.spentUSD
}

// Reserved is what requests in flight hold of the cap, in USD.
func (l *Ledger) Reserved() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.heldUSD
}

// Cap is the spending cap in USD, 0 when none.
func (l *Ledger) Cap() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.capUSD
}

// SetCap changes the cap (USD; 0 removes it), as a user raising it after a
// stop does.
func (l *Ledger) SetCap(capUSD float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.capUSD = max(capUSD, 0)
}
