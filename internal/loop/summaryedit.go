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
	r.state.mu.Lock()
	defer r.state.mu.Unlock()
	s := tokens.VisibleHistory(r.state.history).Summary
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
	return r.comp.editSummaryNow(ctx, text)
}

// editSummaryNow is editSummary while no turn runs: the runner is busy
// meanwhile (claim), and the last turn's result stays what Wait returns.
func (c *compactor) editSummaryNow(ctx context.Context, text string) error {
	if EditableSummary(SummaryFromEditFile(text)) == "" {
		return errors.New("edit summary: the new summary is empty")
	}
	release, last, err := c.claim()
	if err != nil {
		return fmt.Errorf("edit summary: %w", err)
	}
	defer release(last)
	return c.editSummary(ctx, text)
}
