package loop

// openrepair.go: how Open claims and repairs a session it resumes
// (issue 36 item 1): the lease and the repair in one write transaction
// (storage.AcquireRepaired), or, when the session has tool parts left
// pending or running by a crash, the lease, then the processes they
// recorded stopped (stopOrphanedTools), then the repair, as before.

import (
	"context"
	"fmt"

	"github.com/ctxloop/agent/internal/storage"
)

// acquireRepaired claims sessionID's lease and repairs what a crash left
// in it. Failures to stop a process are logged (recovery_error), not
// fatal; a failed repair releases the lease.
func acquireRepaired(ctx context.Context, st *storage.Store, sessionID string) (*storage.Lease, error) {
	lease, _, unfinished, err := st.AcquireRepaired(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", sessionID, err)
	}
	if len(unfinished) == 0 {
		return lease, nil
	}
	for _, err := range stopOrphanedTools(unfinished) {
		_ = st.LogEvent(ctx, sessionID, "recovery_error", map[string]string{"error": err.Error()})
	}
	if _, err := st.RepairSession(ctx, sessionID); err != nil {
		lease.Release()
		return nil, fmt.Errorf("repair session %s: %w", sessionID, err)
	}
	return lease, nil
}
