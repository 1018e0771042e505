package loop

// Non-interactive means non-interactive: in a headless run
// (Options.NonInteractive: agent run) nobody answers a question. When a
// turn ends on its own with the model asking the user something (its
// last paragraph is a question, or asks to be told: asksUser), the run's
// policy answers it: one more step after a synthetic message telling the
// model to proceed with the most reasonable assumption and to say which
// it made. It is recorded as an EventGuard of kind "question" and the
// stored message; once per turn. The other places a run could wait are
// closed elsewhere: permission questions are denied without --yes
// (tools.Permissions with no asker), a doom loop stops the run (no
// DoomAsker), and commands run without a terminal (tools/bash.go).

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/ctxloop/agent/internal/message"
)

// assumePrompt is the policy's answer; its mark lets a turn answer once.
const assumePrompt = assumeMarker + " This is a non-interactive run: no one will answer your question. " +
	"Proceed with the most reasonable assumption, say in your answer which assumption you made, and finish the task."

const assumeMarker = "[non-interactive]"

// answeredTurn runs a turn and, in a headless run, answers a question it
// ended with by the policy (see the file comment).
func answeredTurn(ctx context.Context, d verifyDeps, nonInteractive bool) TurnResult {
	res := d.turn(ctx)
	if !nonInteractive || !endedOnItsOwn(res) || *d.stepsBefore+res.Steps >= d.maxSteps {
		return res
	}
	h := d.history()
	if !asksUser(lastAssistantText(h)) || turnHas(h, assumeMarker) {
		return res
	}
	return continueTurn(ctx, d, res, "question", assumePrompt)
}

// asksUserRe matches a closing paragraph that asks the user to decide
// (compiled on first use).
var asksUserRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(would you like|do you want|should i|shall i|can you|could you|please (confirm|let me know|tell me)|let me know|which (one|option))\b`)
})

// asksUser reports whether an answer ends by asking the user something:
// its last paragraph ends with a question mark (outside code), or opens
// with a request for a decision.
func asksUser(text string) bool {
	text = strings.TrimSpace(text)
	if text == "" || strings.HasSuffix(text, "```") {
		return false
	}
	paras := strings.Split(text, "\n\n")
	last := strings.TrimSpace(paras[len(paras)-1])
	end := strings.TrimRight(last, "*_ )")
	return strings.HasSuffix(end, "?") || asksUserRe().MatchString(strings.TrimLeft(last, "*_ -"))
}

// turnHas reports whether the newest turn of history (after the last
// message the user wrote) has a synthetic message starting with mark.
func turnHas(history []message.Entry, mark string) bool {
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i].Message
		if m.Role != message.RoleUser {
			continue
		}
		if !m.Synthetic {
			return false
		}
		if strings.HasPrefix(entryText(history[i]), mark) {
			return true
		}
	}
	return false
}
