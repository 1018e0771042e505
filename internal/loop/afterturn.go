package loop

import (
	"context"

	"github.com/ctxloop/agent/internal/storage"
)

// recordAfterTurn writes, in one transaction, the session's records that
// follow a turn: the system prompt's count c unless it is the one already
// recorded (what `agent context` counts the prompt with, reading.go), and
// the session's starting git status once (envcontext.go), when the
// session's row is stored. On an error neither is
// marked recorded, so the next turn tries both again. Only the loop calls
// it, holding busy, off the path from Enter to the request; in a one-step
// `agent run` it lies between the answer and the exit, where one commit
// instead of two is what the run saves (issue 36 item 6).
func recordAfterTurn(ctx context.Context, st *storage.Store, s *sessionState, c systemCount) {
	var events []storage.Event
	system := c != s.systemRecorded
	if system {
		events = append(events, storage.Event{Kind: systemTokensKind, Data: c})
	}
	git := !s.git.recorded && s.git.start != nil && s.stored()
	if git {
		events = append(events, storage.Event{Kind: gitStartKind, Data: gitStartRow{Status: *s.git.start}})
	}
	if len(events) == 0 || st.LogEvents(context.WithoutCancel(ctx), s.id(), events...) != nil {
		return
	}
	if system {
		s.systemRecorded = c
	}
	if git {
		s.git.recorded = true
	}
}
