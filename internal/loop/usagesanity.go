package loop

// Suspect usage, as the loop records it. The calculator decides whether a
// call's reported usage is plausible (tokens.SuspectReport) and ignores a
// suspect one; the loop stores the verdict with the step
// (StepState.UsageSuspect) and notes the first suspect report of a session
// once in its event log (kind "usage_suspect"), which `agent inspect`
// shows in its timeline. Later suspect reports are only marked on their
// steps: a provider that always reports wrong would otherwise fill the log.

import (
	"context"
	"sync"

	"github.com/ctxloop/agent/internal/storage"
)

// UsageSuspectNote is the event logged for a session's first suspect
// usage report.
type UsageSuspectNote struct {
	// Reported is the provider's input tokens; Estimate our count of the
	// same request, which the calculator used instead.
	Reported int64 `json:"reported"`
	Estimate int64 `json:"estimate"`
}

// usageNote logs a session's first suspect report once. The zero value is
// ready; it is used by the loop goroutine only, the mutex guards a reuse
// across sessions.
type usageNote struct {
	mu    sync.Mutex
	noted map[string]bool
}

// note logs the report unless this session's log already has one.
func (n *usageNote) note(ctx context.Context, st *storage.Store, sessionID string, reported, estimate int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.noted[sessionID] {
		return
	}
	if n.noted == nil {
		n.noted = map[string]bool{}
	}
	n.noted[sessionID] = true
	ctx = context.WithoutCancel(ctx)
	if prev, err := st.ListEventLogKind(ctx, sessionID, "usage_suspect"); err != nil || len(prev) > 0 {
		return
	}
	_ = st.LogEvent(ctx, sessionID, "usage_suspect", UsageSuspectNote{Reported: reported, Estimate: estimate})
}
