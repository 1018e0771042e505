package loop

// Editing the summary (/summary edit, `agent compact --edit`): the text the
// user writes replaces the newest summary's text for every later request;
// the user's messages kept verbatim in it and the pins stay as they are
// (summaryfile.go). The
// summary as first written stays in the database, in its compaction's
// marker (CompactionState.OriginalSummary), and each edit is in the event
// log.

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// ErrNoSummary is returned when the session has no summary to edit.
var ErrNoSummary = errors.New("no summary yet: compact first (/compact or agent compact)")

// Summary returns the text of the summary the next request carries, and
// its message id; ErrNoSummary when there is none.
func (r *Runner) Summary() (text, id string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := tokens.VisibleHistory(r.history).Summary
	if s == nil {
		return "", "", ErrNoSummary
	}
	return joinText(s.Parts, message.PartText), s.Message.ID, nil
}

// EditSummary replaces the text of the newest summary with text for every
// later request. Only the summary text is replaced: the user messages it
// keeps verbatim stay, whatever text holds (an editor's read-only part,
// below SummaryEditMarker, is dropped). It fails while a turn runs, and on
// an empty text.
func (r *Runner) EditSummary(ctx context.Context, text string) error {
	if EditableSummary(SummaryFromEditFile(text)) == "" {
		return errors.New("edit summary: the new summary is empty")
	}
	r.mu.Lock()
	if r.busy {
		r.mu.Unlock()
		return fmt.Errorf("edit summary: %w", ErrBusy)
	}
	r.busy = true
	r.idle = make(chan struct{})
	last := r.last
	r.mu.Unlock()
	defer r.setIdle(last)

	sumIdx, markIdx := r.summaryEntries()
	if sumIdx < 0 {
		return fmt.Errorf("edit summary: %w", ErrNoSummary)
	}
	summary := r.history[sumIdx]
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
		sp = message.Part{SessionID: r.sess.ID, MessageID: summary.Message.ID, Type: message.PartText, Text: text}
	}
	if err := r.store.UpsertPart(ctx, &sp); err != nil {
		return fmt.Errorf("edit summary: %w", err)
	}
	var state *message.CompactionState
	if markIdx >= 0 {
		mp := r.history[markIdx].Parts[0]
		st := *mp.Compaction
		if st.OriginalSummary == "" {
			st.OriginalSummary = original
		}
		st.Edits++
		mp.Compaction, state = &st, &st
		if err := r.store.UpsertPart(ctx, &mp); err != nil {
			return fmt.Errorf("edit summary: %w", err)
		}
		r.mu.Lock()
		r.history[markIdx].Parts = []message.Part{mp}
		r.mu.Unlock()
	}
	r.mu.Lock()
	parts := []message.Part{sp}
	for _, p := range summary.Parts {
		if p.Type != message.PartText {
			parts = append(parts, p)
		}
	}
	r.history[sumIdx].Parts = parts
	r.mu.Unlock()
	// The history is rewritten: the total is estimated until the next call.
	r.calc().Reset(r.calc().EstimateEntries(Visible(r.history)))
	_ = r.store.LogEvent(context.WithoutCancel(ctx), r.sess.ID, "summary_edited", map[string]any{
		"summary_id": summary.Message.ID, "original": original, "edited": text, "state": state})
	r.emit(message.Event{Type: message.EventPartUpdated, SessionID: r.sess.ID, Part: &sp})
	return nil
}

// summaryEntries returns the indexes in the history of the newest summary
// and of its compaction's marker (-1 when missing). The caller holds busy.
func (r *Runner) summaryEntries() (summary, marker int) {
	summary, marker = -1, -1
	for i := len(r.history) - 1; i >= 0; i-- {
		if r.history[i].Message.Summary && !r.history[i].Message.Rewound() {
			summary = i
			break
		}
	}
	if summary < 0 {
		return -1, -1
	}
	id := r.history[summary].Message.ID
	for i := summary - 1; i >= 0; i-- {
		if ps := r.history[i].Parts; len(ps) == 1 && ps[0].Compaction != nil && ps[0].Compaction.SummaryID == id {
			return summary, i
		}
	}
	return summary, -1
}
