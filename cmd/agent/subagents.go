package main

// Subagents' sessions (the task tool's children) belong to the session
// that started them: `agent sessions` and -c leave them out (storage), and
// `agent sessions rm` of a parent removes them with it, saved outputs and
// checkpoints included.

import (
	"context"
	"fmt"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
)

// subagentSessions returns the sessions id started and theirs, oldest
// first within each level.
func subagentSessions(ctx context.Context, st *storage.Store, id string) []*message.Session {
	var out []*message.Session
	queue := []string{id}
	for len(queue) > 0 {
		kids, err := st.ChildSessions(ctx, queue[0])
		queue = queue[1:]
		if err != nil {
			continue
		}
		for i := range kids {
			out = append(out, &kids[i])
			queue = append(queue, kids[i].ID)
		}
	}
	return out
}

// subagentsNote is what the removal question adds about id's subagents.
func subagentsNote(ctx context.Context, st *storage.Store, id string) string {
	switch n := len(subagentSessions(ctx, st, id)); n {
	case 0:
		return ""
	case 1:
		return " and its subagent's session"
	default:
		return fmt.Sprintf(" and its %d subagents' sessions", n)
	}
}
