package loop

import (
	"context"

	"github.com/ctxloop/agent/internal/message"
)

// addSessionUsage adds one call's usage and cost to the session's totals
// (stored, then in memory) and announces the session, so that every figure
// shown live is the stored one: the steps, the summary requests and the
// small model's title requests alike. Calls from the loop and from the
// title request are serialised, so the last announcement carries the
// newest totals.
func (r *Runner) addSessionUsage(ctx context.Context, u message.Usage, costUSD float64) {
	r.sessWrite.Lock()
	defer r.sessWrite.Unlock()
	if err := r.store.AddSessionUsage(context.WithoutCancel(ctx), r.sess.ID, u, costUSD); err != nil {
		return
	}
	r.mu.Lock()
	r.sess.Usage = r.sess.Usage.Add(u)
	r.sess.CostUSD += costUSD
	s := r.sess
	r.mu.Unlock()
	r.emit(message.Event{Type: message.EventSessionUpdated, SessionID: s.ID, Session: &s})
}

// costOf prices usage at model's price.
func (sp *stepper) costOf(model string, u message.Usage) float64 {
	info, _ := sp.opt.Config.ModelInfo(model)
	return costAt(info.Price, u)
}
