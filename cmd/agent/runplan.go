package main

// Plan mode headless (internal/plan): agent run --plan answers in plan
// mode — read-only tools only, the final answer stored as the session's
// plan — and agent run -c --execute (or --session ID --execute) leaves
// plan mode and sends the session's latest plan, as the user may have
// edited it, as the next message. Words given with --execute follow the
// plan as the user's own addition.

import (
	"context"
	"strings"

	"github.com/ctxloop/agent/internal/loop"
)

// checkPlanFlags refuses the combinations of --plan and --execute that
// mean nothing.
func checkPlanFlags(f *runFlags) error {
	switch {
	case f.plan && f.execute:
		return usageError("--plan and --execute are mutually exclusive: plan first, then run -c --execute")
	case f.execute && f.session == "" && !f.cont:
		return usageError("--execute runs a session's plan: give -c or --session ID")
	}
	return nil
}

// executePrompt is the message that approves and runs r's latest plan,
// with extra (the prompt given with --execute) after it; bad usage when
// the session has no plan.
func executePrompt(r *loop.Runner, extra string) (string, error) {
	whole, _ := loop.WholeHistory(context.Background(), r)
	p, ok := loop.LatestPlan(whole)
	if !ok {
		return "", usageError("--execute: session %s has no plan; make one with agent run --plan", r.Session().ID)
	}
	msg := loop.ExecuteMessage(p.Text)
	if extra = strings.TrimSpace(extra); extra != "" {
		msg += "\n\n" + extra
	}
	return msg, nil
}
