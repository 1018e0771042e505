package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/context/prune"
	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// ErrNothingToCompact is returned when the history has nothing to summarise.
var ErrNothingToCompact = errors.New("nothing to compact yet")

// maxSummaryOverflowRetries bounds how often a summary request that itself
// overflows is made smaller and tried again.
const maxSummaryOverflowRetries = 8

// Compact summarises the session now (the /compact command and `agent
// compact`), with optional focus instructions. It fails if a turn is
// running.
func (r *Runner) Compact(ctx context.Context, focus string) error {
	r.mu.Lock()
	if r.busy {
		r.mu.Unlock()
		return errors.New("compact: the agent is busy; wait for the turn to end or cancel it")
	}
	r.busy = true
	r.idle = make(chan struct{})
	r.mu.Unlock()
	err := r.compact(ctx, false, "manual", focus)
	res := TurnResult{FinishReason: "compacted"}
	if err != nil {
		res = TurnResult{FinishReason: FinishError, Err: err}
	}
	r.setIdle(res)
	return err
}

// compact runs a compaction: prune, plan, ask the model for a summary of
// what the plan summarises, check it shrinks the context, and store it.
// A compaction that does not shrink the context is rejected and logged.
func (r *Runner) compact(ctx context.Context, auto bool, reason, focus string) error {
	if r.opt.Config.Compaction.Prune {
		r.prune(ctx)
	}
	snap := r.calc().Snapshot()
	before := snap.Total
	sys, tl := r.fixedTokens()
	opts := compact.DefaultOptions(snap.Window, snap.OutputReserve)
	if n := r.opt.Config.Compaction.TailTurns; n >= 0 {
		opts.TailTurns = n
	}
	plan := compact.MakePlan(Visible(r.history), r.est, opts)
	if len(plan.Summarize) == 0 {
		return ErrNothingToCompact
	}
	r.emit(message.Event{Type: message.EventCompacting, SessionID: r.sess.ID, Summarising: len(plan.Summarize), Compaction: &message.CompactionState{Auto: auto, Reason: reason, Focus: focus, TokensBefore: before}})

	text, err := r.summarise(ctx, plan, focus)
	if err != nil {
		return fmt.Errorf("summarise: %w", err)
	}
	body := compact.ComposeSummary(text, plan.UserMessages)

	// Build what the history will look like, and measure it, before
	// writing anything.
	marker := message.Message{SessionID: r.sess.ID, Role: message.RoleUser, Synthetic: true, FinishedAt: time.Now()}
	state := &message.CompactionState{Auto: auto, Reason: reason, Focus: focus, TokensBefore: before}
	if len(plan.Tail) > 0 {
		state.TailFrom = plan.Tail[0].Message.ID
	}
	summary := message.Message{SessionID: r.sess.ID, Role: message.RoleAssistant, Summary: true, Model: r.summaryModel()}
	candidate := append(append([]message.Entry(nil), r.history...),
		message.Entry{Message: marker, Parts: []message.Part{{Type: message.PartCompaction, Compaction: state}}},
		message.Entry{Message: summary, Parts: []message.Part{{Type: message.PartText, Text: body}}})
	after := sys + tl + r.calc().EstimateEntries(Visible(candidate))
	state.TokensAfter = after

	if verr := compact.Validate(body, before, after); verr != nil {
		state.Rejected = true
		if _, err := r.saveMarker(ctx, &marker, state); err != nil {
			return err
		}
		_ = r.store.LogEvent(ctx, r.sess.ID, "compaction_rejected", state)
		r.emit(message.Event{Type: message.EventCompacted, SessionID: r.sess.ID, Compaction: state})
		return fmt.Errorf("compaction rejected: %w", verr)
	}

	mp, err := r.saveMarker(ctx, &marker, state)
	if err != nil {
		return err
	}
	summary.FinishedAt = time.Now()
	if err := r.store.CreateMessage(ctx, &summary); err != nil {
		return fmt.Errorf("save summary: %w", err)
	}
	sp := message.Part{SessionID: r.sess.ID, MessageID: summary.ID, Type: message.PartText, Text: body}
	if err := r.store.UpsertPart(ctx, &sp); err != nil {
		return fmt.Errorf("save summary: %w", err)
	}
	state.SummaryID = summary.ID
	if err := r.store.UpsertPart(ctx, &mp); err != nil {
		return fmt.Errorf("save compaction: %w", err)
	}
	r.mu.Lock()
	r.history[len(r.history)-1].Parts = []message.Part{mp}
	r.history = append(r.history, message.Entry{Message: summary, Parts: []message.Part{sp}})
	r.mu.Unlock()

	r.failedCompactionAt = 0
	r.calc().Reset(r.calc().EstimateEntries(Visible(r.history)))
	_ = r.store.LogEvent(ctx, r.sess.ID, "compaction", state)
	r.emit(message.Event{Type: message.EventMessageUpdated, SessionID: r.sess.ID, Message: &summary})
	r.emit(message.Event{Type: message.EventPartUpdated, SessionID: r.sess.ID, Part: &sp})
	r.emit(message.Event{Type: message.EventCompacted, SessionID: r.sess.ID, Compaction: state})
	if auto {
		return r.addUserMessage(ctx, compact.ContinuePrompt, true)
	}
	return nil
}

// saveMarker stores the user-side record of a compaction and appends it to
// the history.
func (r *Runner) saveMarker(ctx context.Context, m *message.Message, state *message.CompactionState) (message.Part, error) {
	if err := r.store.CreateMessage(ctx, m); err != nil {
		return message.Part{}, fmt.Errorf("save compaction: %w", err)
	}
	p := message.Part{SessionID: r.sess.ID, MessageID: m.ID, Type: message.PartCompaction, Compaction: state}
	if err := r.store.UpsertPart(ctx, &p); err != nil {
		return message.Part{}, fmt.Errorf("save compaction: %w", err)
	}
	r.mu.Lock()
	r.history = append(r.history, message.Entry{Message: *m, Parts: []message.Part{p}})
	r.mu.Unlock()
	return p, nil
}

func (r *Runner) summaryModel() string {
	if m := r.opt.Config.SmallModel; m != "" {
		return m
	}
	return r.model
}

// summarise asks the model for the summary text. A request that overflows
// the window is tried again smaller: first with its tool results cut to half
// the largest one's size, then half again, down to minResultCap (what the
// model did and read stays in the summary, shortened), and only then by
// dropping the oldest summarised messages.
func (r *Runner) summarise(ctx context.Context, plan compact.Plan, focus string) (string, error) {
	entries := plan.Summarize
	resultCap := 0 // bytes kept of each tool result; 0 keeps them whole
	for try := 0; ; try++ {
		var hist []message.Entry
		if plan.PreviousSummary != nil {
			hist = append(hist, *plan.PreviousSummary)
		}
		hist = append(hist, entries...)
		msgs := ToModelMessages(hist, ConvertOptions{})
		if resultCap > 0 {
			capToolResults(msgs, resultCap)
		}
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: compact.SummaryPrompt(focus)})
		text, usage, err := r.complete(ctx, provider.Request{Model: r.summaryModel(), Messages: msgs})
		if usage != nil {
			cost := r.cost(*usage)
			_ = r.store.AddSessionUsage(ctx, r.sess.ID, *usage, cost)
		}
		if err == nil {
			return text, nil
		}
		if provider.IsContextOverflow(err) && try < maxSummaryOverflowRetries {
			if c := halveResultCap(msgs, resultCap); c > 0 {
				resultCap = c
				continue
			}
			if len(entries) > 1 {
				entries = compact.DropOldest(entries, max(1, len(entries)/4))
				continue
			}
		}
		return "", err
	}
}

// minResultCap is the least capToolResults keeps of a tool result.
const minResultCap = 1024

// halveResultCap returns the next, smaller cap on tool results for a summary
// request that overflowed with the current cap (0: none yet): half of it, or half of
// the largest result. It returns 0 when no result is above minResultCap.
func halveResultCap(msgs []openai.ChatCompletionMessage, current int) int {
	if current == 0 {
		for _, m := range msgs {
			if m.Role == openai.ChatMessageRoleTool {
				current = max(current, len(m.Content))
			}
		}
	}
	if current/2 < minResultCap {
		return 0
	}
	return current / 2
}

// capToolResults keeps the head and tail of every tool result longer than
// capBytes, with a marker where the middle was cut.
func capToolResults(msgs []openai.ChatCompletionMessage, capBytes int) {
	for i, m := range msgs {
		if m.Role != openai.ChatMessageRoleTool || len(m.Content) <= capBytes {
			continue
		}
		head, tail, cut := truncate.SplitHeadTail(m.Content, 0, capBytes)
		msgs[i].Content = truncate.JoinHeadTail(head, tail, truncate.CutMarker(cut))
	}
}

// complete makes a tool-less call and returns its text, with retries.
func (r *Runner) complete(ctx context.Context, req provider.Request) (string, *message.Usage, error) {
	for attempt := 1; ; attempt++ {
		text, usage, err := r.completeOnce(ctx, req)
		if err == nil {
			return text, usage, nil
		}
		delay, retry := r.retryDelay(attempt, err)
		if ctx.Err() != nil || !retry {
			return "", usage, err
		}
		if err := r.waitRetry(ctx, attempt, delay, err); err != nil {
			return "", usage, err
		}
	}
}

func (r *Runner) completeOnce(ctx context.Context, req provider.Request) (string, *message.Usage, error) {
	st, err := r.opt.Provider.Stream(ctx, req)
	if err != nil {
		return "", nil, err
	}
	defer st.Close()
	var b strings.Builder
	var usage *message.Usage
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return b.String(), usage, nil
		}
		if err != nil {
			return "", usage, err
		}
		switch ev.Type {
		case provider.EventTextDelta:
			b.WriteString(ev.Text)
		case provider.EventUsage:
			u := *ev.Usage
			usage = &u
		}
	}
}

// prune marks old tool outputs compacted when that frees enough.
func (r *Runner) prune(ctx context.Context) {
	res := prune.Pass(Visible(r.history), r.est, r.pruneOptions())
	if len(res.PartIDs) == 0 {
		return
	}
	now := time.Now()
	if err := r.store.MarkCompacted(ctx, res.PartIDs, now); err != nil {
		r.emitError(fmt.Sprintf("prune: %v", err))
		return
	}
	marked := make(map[string]bool, len(res.PartIDs))
	for _, id := range res.PartIDs {
		marked[id] = true
	}
	r.mu.Lock()
	for i := range r.history {
		for j := range r.history[i].Parts {
			p := &r.history[i].Parts[j]
			if marked[p.ID] && p.Tool != nil {
				st := *p.Tool
				st.CompactedAt = now
				p.Tool = &st
			}
		}
	}
	r.mu.Unlock()
	before := r.calc().Snapshot().Total
	r.calc().RemoveEstimate(res.TokensSaved)
	info := &message.PruneInfo{Parts: res.Parts, TokensSaved: res.TokensSaved, TokensBefore: before, TokensAfter: r.calc().Snapshot().Total}
	_ = r.store.LogEvent(ctx, r.sess.ID, "prune", info)
	r.emit(message.Event{Type: message.EventPruned, SessionID: r.sess.ID, Prune: info})
}

// pruneOptions returns the session's prune thresholds (PruneThresholds).
func (r *Runner) pruneOptions() prune.Options {
	return PruneThresholds(r.opt.Config.Compaction, r.calc().Snapshot())
}
