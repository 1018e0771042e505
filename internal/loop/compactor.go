package loop

// The compactor: everything about context management as the loop runs it
// — deciding compaction (the forecast, the failed point, the breaker of a
// turn), pruning, summarising (compaction.go, with summariser.go for the
// requests), and the writes that rewrite a session's history: a
// compaction's marker, pruned outputs, the undo of a compaction or of a
// prune, and an edit of the summary. It is given what it works on
// explicitly (compactorDeps: a compactionStore, the session's history
// through a sessionHistory, and function values for the session id, the
// pricing, the calculator, the request's size, hooks and the event sink),
// so it runs and is tested without a Runner.
//
// It takes no lock. Its state (failedAt, breaker, near) and every call are
// owned by whoever holds the loop's busy flag — the loop goroutine during
// a turn, the caller of Compact, UndoCompaction or EditSummary otherwise —
// and every write of the history goes through sessionHistory.update,
// under the lock the readers of a running loop take.

import (
	"context"
	"fmt"
	"time"

	"github.com/ctxloop/agent/internal/budget"
	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
	"github.com/ctxloop/agent/internal/storage"
)

// compactionStore is what the compactor writes to and reads from the
// database; a *storage.Store is one.
type compactionStore interface {
	CreateMessage(ctx context.Context, m *message.Message, parts ...*message.Part) error
	UpsertPart(ctx context.Context, p *message.Part) error
	MarkCompacted(ctx context.Context, partIDs []string, at time.Time) error
	RestoreCompacted(ctx context.Context, partIDs []string) error
	LogEvent(ctx context.Context, sessionID, kind string, data any) error
	ListEventLogKind(ctx context.Context, sessionID, kind string) ([]storage.LogEntry, error)
}

// sessionHistory is the compactor's access to the session's history.
// entries returns the live history, to be read only by whoever holds the
// loop's busy flag; update replaces it with what edit returns, under the
// lock the readers of a running loop take.
type sessionHistory interface {
	entries() []message.Entry
	update(edit func([]message.Entry) []message.Entry)
}

// compactorDeps is what a compactor is given. Every field is required.
type compactorDeps struct {
	store   compactionStore
	history sessionHistory
	// session is the session's id; price, how the current model prices a
	// history; calc, the current token calculator (each may change
	// between calls: /model).
	session func() string
	price   func() pricing
	calc    func() *tokens.Calculator
	// sent prices the messages of a history a request sends, by the
	// calibrated and the plain estimator (own: history is the session's
	// own, whose pricing is kept: requestCache.estimate); fixed is the
	// rest of a request, the system prompt, the tool schemas and the pins.
	sent  func(history []message.Entry, own bool) (calibrated, plain int64)
	fixed func() compact.Fixed
	emit  func(message.Event)
	// preHooks and postHooks fire the user's PreCompact and PostCompact
	// hooks around a compaction (hooks.go); preHooks' error blocks it.
	preHooks  func(ctx context.Context, req compactRequest) error
	postHooks func(ctx context.Context, req compactRequest, err error)
	// continueTask adds the synthetic continue after an automatic
	// compaction in the middle of a task.
	continueTask func(ctx context.Context) error
	// claim makes the loop busy for a compaction, an undo or a summary
	// edit the user asked for, failing with ErrBusy while a turn runs; it
	// returns the last turn's result and release, which ends the busy
	// period with a result (a message sent meanwhile then starts its turn).
	claim func() (release func(TurnResult), last TurnResult, err error)
}

// compactor manages a session's context; see the top of this file.
type compactor struct {
	compactorDeps
	sum *summariser
	// failedAt is the total at which the last automatic compaction failed
	// or was rejected; 0 when none did.
	failedAt int64
	// breaker bounds the compaction attempts until a request goes through.
	breaker compact.Breaker
	near    nearState // the forecast of compaction
}

// newCompactor makes a compactor of d that asks sum for its summaries.
func newCompactor(d compactorDeps, sum *summariser) *compactor {
	return &compactor{compactorDeps: d, sum: sum}
}

// newTurn starts a turn: its compactions get the breaker's attempts anew.
func (c *compactor) newTurn() { c.breaker = compact.Breaker{} }

// wentThrough records a request the provider took: the breaker's
// attempts are given back.
func (c *compactor) wentThrough() { c.breaker = c.breaker.Through() }

// failedCovers reports whether an automatic compaction failed recently
// enough that trying again now would fail too: the context has not grown
// by a twentieth of the window since.
func (c *compactor) failedCovers(s tokens.Reading) bool {
	return c.failedAt > 0 && s.Total < c.failedAt+s.Window/20
}

// reestimate resets the calculator to an estimate of the history sent: it
// changed, so the last call's usage no longer describes it.
func (c *compactor) reestimate() {
	calc, h := c.calc(), c.history.entries()
	calc.Reset(calc.EstimateEntries(Visible(h)))
	_, todoTokens := todoNow(h, calc.Estimator()) // a summary may have taken the todo_write out: todo.go
	calc.SetTodo(todoTokens)
}

// saveMarker stores the user-side record of a compaction and appends it to
// the history.
func (c *compactor) saveMarker(ctx context.Context, m *message.Message, state *message.CompactionState) (message.Part, error) {
	if err := c.store.CreateMessage(ctx, m); err != nil {
		return message.Part{}, fmt.Errorf("save compaction: %w", err)
	}
	p := message.Part{SessionID: c.session(), MessageID: m.ID, Type: message.PartCompaction, Compaction: state}
	if err := c.store.UpsertPart(ctx, &p); err != nil {
		return message.Part{}, fmt.Errorf("save compaction: %w", err)
	}
	c.history.update(func(h []message.Entry) []message.Entry {
		return append(h, message.Entry{Message: *m, Parts: []message.Part{p}})
	})
	return p, nil
}

// markCompacted marks tool parts compacted (their outputs are sent as
// message.ClearedOutput from now on), in the database and in the history.
func (c *compactor) markCompacted(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	now := time.Now()
	if err := c.store.MarkCompacted(ctx, ids, now); err != nil {
		return fmt.Errorf("clear tool outputs: %w", err)
	}
	marked := make(map[string]bool, len(ids))
	for _, id := range ids {
		marked[id] = true
	}
	c.history.update(func(h []message.Entry) []message.Entry {
		for i := range h {
			for j := range h[i].Parts {
				p := &h[i].Parts[j]
				if marked[p.ID] && p.Tool != nil {
					st := *p.Tool
					st.CompactedAt = now
					p.Tool = &st
				}
			}
		}
		return h
	})
	return nil
}

// notApplied records an attempt that changed nothing: a marker in the
// history (the transcript shows it), the event log and an event. It
// returns err, which wraps errNotApplied.
func (c *compactor) notApplied(ctx context.Context, state *message.CompactionState, err error) error {
	state.Rejected = true
	marker := message.Message{SessionID: c.session(), Role: message.RoleUser, Synthetic: true, FinishedAt: time.Now()}
	if _, serr := c.saveMarker(context.WithoutCancel(ctx), &marker, state); serr != nil {
		return serr
	}
	kind := "compaction_rejected"
	if state.Outcome == message.CompactionFailed {
		kind = "compaction_failed"
	}
	_ = c.store.LogEvent(context.WithoutCancel(ctx), c.session(), kind, state)
	c.emit(message.Event{Type: message.EventCompacted, SessionID: c.session(), Compaction: state})
	return fmt.Errorf("%w: %w", errNotApplied, err)
}

// applyCompaction stores a compaction: the marker with its state, the
// summary message (its parent the marker, with the usage and cost of the
// requests that wrote it), and resets the calculator to the new history
// (roundtrip: the model is sent its reasoning back, setReasoningRow).
func (c *compactor) apply(ctx context.Context, state *message.CompactionState, body, model string, spent summaryCost, kind string, roundtrip bool) error {
	marker := message.Message{SessionID: c.session(), Role: message.RoleUser, Synthetic: true, FinishedAt: time.Now()}
	mp, err := c.saveMarker(ctx, &marker, state)
	if err != nil {
		return err
	}
	summary := message.Message{SessionID: c.session(), Role: message.RoleAssistant, Summary: true, Model: model, FinishedAt: time.Now(),
		ParentID: marker.ID, Usage: spent.usage, CostUSD: spent.costUSD}
	if err := c.store.CreateMessage(ctx, &summary); err != nil {
		return fmt.Errorf("save summary: %w", err)
	}
	sp := message.Part{SessionID: c.session(), MessageID: summary.ID, Type: message.PartText, Text: body}
	if err := c.store.UpsertPart(ctx, &sp); err != nil {
		return fmt.Errorf("save summary: %w", err)
	}
	state.SummaryID = summary.ID
	if err := c.store.UpsertPart(ctx, &mp); err != nil {
		return fmt.Errorf("save compaction: %w", err)
	}
	c.history.update(func(h []message.Entry) []message.Entry {
		h[len(h)-1].Parts = []message.Part{mp}
		return append(h, message.Entry{Message: summary, Parts: []message.Part{sp}})
	})

	c.reestimate()
	setReasoningRow(c.calc(), c.history.entries(), roundtrip)
	_ = c.store.LogEvent(ctx, c.session(), kind, state)
	c.emit(message.Event{Type: message.EventMessageUpdated, SessionID: c.session(), Message: &summary})
	c.emit(message.Event{Type: message.EventPartUpdated, SessionID: c.session(), Part: &sp})
	c.emit(message.Event{Type: message.EventCompacted, SessionID: c.session(), Compaction: state})
	return nil
}

// undo restores the history as it was before the newest compaction, or,
// with none in force, the pruned outputs (uncompact.go says which and
// when). The caller holds busy.
func (c *compactor) undo(ctx context.Context) (Undo, error) {
	history := c.history.entries()
	plan := planUndo(history)
	if plan.empty() {
		return Undo{}, ErrNothingToUndo
	}
	restored := plan.apply(history, time.Now())
	u := Undo{TokensBefore: c.requestEstimate(history), TokensAfter: c.requestEstimate(restored)}
	what := "the history before the compaction"
	if plan.entry < 0 {
		what = "the history with its pruned outputs restored"
	}
	if point := c.price().fitPoint(); point > 0 && u.TokensAfter > point {
		return Undo{}, &UndoTooLargeError{What: what, Need: u.TokensAfter, Window: c.calc().Reading().Window, Point: point}
	}
	kind := "compaction_undone"
	if plan.entry >= 0 {
		p := restored[plan.entry].Parts[plan.part]
		if err := c.store.UpsertPart(ctx, &p); err != nil {
			return Undo{}, fmt.Errorf("undo compaction: %w", err)
		}
		restored[plan.entry].Parts[plan.part] = p
		u.Kind, u.SummaryID = "compaction", p.Compaction.SummaryID
	} else {
		if err := c.store.RestoreCompacted(ctx, plan.pruned); err != nil {
			return Undo{}, fmt.Errorf("undo pruning: %w", err)
		}
		u.Kind, u.Parts = "pruned", len(plan.pruned)
		kind = "prune_undone"
	}
	c.history.update(func([]message.Entry) []message.Entry { return restored })
	if plan.entry < 0 {
		// A marker records the restore in the history, as a compaction
		// records itself: a reopened session's calculator (tokens.Restore)
		// then knows the last call's usage no longer describes the
		// history, as the running one does.
		marker := message.Message{SessionID: c.session(), Role: message.RoleUser, Synthetic: true, FinishedAt: time.Now()}
		state := &message.CompactionState{Reason: "undo", Outcome: "restored", TokensBefore: u.TokensBefore, TokensAfter: u.TokensAfter,
			Note: fmt.Sprintf("%d cleared tool outputs restored", u.Parts)}
		if _, err := c.saveMarker(ctx, &marker, state); err != nil {
			return Undo{}, fmt.Errorf("undo pruning: %w", err)
		}
	}
	// The history sent changed: the total is an estimate until the next
	// call, exactly as tokens.Restore computes it from the stored rows.
	c.reestimate()
	_ = c.store.LogEvent(ctx, c.session(), kind, u)
	return u, nil
}

// editSummary replaces the text of the newest summary with text (see
// summaryedit.go). The caller holds busy and checked text is not empty.
func (c *compactor) editSummary(ctx context.Context, text string) error {
	history := c.history.entries()
	sumIdx, markIdx := summaryEntries(history)
	if sumIdx < 0 {
		return fmt.Errorf("edit summary: %w", ErrNoSummary)
	}
	summary := history[sumIdx]
	original := joinText(summary.Parts, message.PartText)
	text = summaryWithEdit(original, text)
	if text == original {
		return nil
	}
	var sp message.Part
	for _, p := range summary.Parts {
		if p.Type == message.PartText {
			sp = p
			break
		}
	}
	sp.Text = text
	if sp.ID == "" {
		sp = message.Part{SessionID: c.session(), MessageID: summary.Message.ID, Type: message.PartText, Text: text}
	}
	if err := c.store.UpsertPart(ctx, &sp); err != nil {
		return fmt.Errorf("edit summary: %w", err)
	}
	var state *message.CompactionState
	if markIdx >= 0 {
		mp := history[markIdx].Parts[0]
		st := *mp.Compaction
		if st.OriginalSummary == "" {
			st.OriginalSummary = original
		}
		st.Edits++
		mp.Compaction, state = &st, &st
		if err := c.store.UpsertPart(ctx, &mp); err != nil {
			return fmt.Errorf("edit summary: %w", err)
		}
		c.history.update(func(h []message.Entry) []message.Entry {
			h[markIdx].Parts = []message.Part{mp}
			return h
		})
	}
	parts := []message.Part{sp}
	for _, p := range summary.Parts {
		if p.Type != message.PartText {
			parts = append(parts, p)
		}
	}
	c.history.update(func(h []message.Entry) []message.Entry {
		h[sumIdx].Parts = parts
		return h
	})
	// The history is rewritten: the total is estimated until the next call.
	c.reestimate()
	_ = c.store.LogEvent(context.WithoutCancel(ctx), c.session(), "summary_edited", map[string]any{
		"summary_id": summary.Message.ID, "original": original, "edited": text, "state": state})
	c.emit(message.Event{Type: message.EventPartUpdated, SessionID: c.session(), Part: &sp})
	return nil
}

// summaryEntries returns the indexes in history of the newest summary and
// of its compaction's marker (-1 when missing).
func summaryEntries(history []message.Entry) (summary, marker int) {
	summary, marker = -1, -1
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Message.Summary && !history[i].Message.Rewound() {
			summary = i
			break
		}
	}
	if summary < 0 {
		return -1, -1
	}
	id := history[summary].Message.ID
	for i := summary - 1; i >= 0; i-- {
		if ps := history[i].Parts; len(ps) == 1 && ps[0].Compaction != nil && ps[0].Compaction.SummaryID == id {
			return summary, i
		}
	}
	return summary, -1
}

// funcHistory is a sessionHistory of two functions (a Runner's history:
// get reads r.state.history, update writes it under r.state.mu).
type funcHistory struct {
	get func() []message.Entry
	set func(edit func([]message.Entry) []message.Entry)
	// whole reads what Open's window left out (readWhole, openwindow.go).
	whole func(ctx context.Context) error
}

func (h funcHistory) readWhole(ctx context.Context) error { return h.whole(ctx) }

func (h funcHistory) entries() []message.Entry { return h.get() }

func (h funcHistory) update(edit func([]message.Entry) []message.Entry) { h.set(edit) }

// runnerCompactor makes the compactor of a Runner: its store, its history,
// and its pricing, prompt, pins, hooks and provider as function values.
// Open calls it once; nothing here keeps r but the functions' closures.
func runnerCompactor(r *Runner) *compactor {
	d := compactorDeps{
		store: r.store,
		history: funcHistory{
			get:   func() []message.Entry { return r.state.history },
			set:   r.state.editHistory,
			whole: func(ctx context.Context) error { return readWhole(ctx, r.store, r.state) },
		},
		session: r.state.id,
		price:   func() pricing { return r.mp.priced(r.opt.Config, r.stepper.ceiling.Load(), r.calcp.Load()) },
		calc:    r.calcp.Load,
		sent: func(h []message.Entry, own bool) (int64, int64) {
			return r.stepper.reqc.estimate(h, own, r.calcp.Load(), r.mp.est)
		},
		fixed: func() compact.Fixed {
			sys, tl := r.fixedTokens()
			_, pins := pinsNow(r.state.pinsCopy(), r.mp.est)
			_, todoTokens := r.stepper.reqc.todo.now(r.state.history, r.state.historyMark(), r.mp.est) // sent after the pins (todo.go, todomemo.go)
			return compact.Fixed{System: sys, Tools: tl, Pins: pins + todoTokens}
		},
		emit: r.ev.emit,
		// The hook points and the stepper are made after the compactor:
		// these funcs reach them when called, not now.
		preHooks:     func(ctx context.Context, req compactRequest) error { return r.hooks.preCompact(ctx, req) },
		postHooks:    func(ctx context.Context, req compactRequest, err error) { r.hooks.postCompact(ctx, req, err) },
		continueTask: func(ctx context.Context) error { return committed(r.addUserMessage(ctx, compact.ContinuePrompt, true)) },
		claim: func() (func(TurnResult), TurnResult, error) {
			last, err := r.turns.claimPeriod()
			if err != nil {
				return nil, TurnResult{}, err
			}
			return r.turns.setIdle, last, nil
		},
	}
	return newCompactor(d, newSummariser(summaryCalls{
		provider: r.opt.Provider,
		price:    func() pricing { return r.mp.priced(r.opt.Config, r.stepper.ceiling.Load(), r.calcp.Load()) },
		reserve: func(req provider.Request) (*budget.Reservation, error) {
			return r.stepper.reserve(req.Model, messagesEstimate(req), int64(req.MaxTokens))
		},
		bill: func(ctx context.Context, model string, u message.Usage) float64 {
			cost := r.stepper.costOf(model, u) // billed at the writer's price, and shown live
			usageAdder(r.state, r.store, r.ev)(ctx, u, cost)
			return cost
		},
		wait: func(ctx context.Context, attempt int, delay time.Duration, err error) error {
			return r.stepper.waitRetry(ctx, attempt, delay, err)
		},
	}))
}
