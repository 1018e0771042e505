package acp

// replay.go: session/load streams the stored conversation back to the
// client before it answers: user text as user chunks, the assistant's
// text and reasoning as agent and thought chunks, each tool call with its
// final status and output, the last todo list as the plan. Summaries are
// shown as the agent's text (they stand for what they replaced); the
// messages before the newest summary are replayed too — the client shows
// the whole conversation, the model is sent what the loop sends.

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/todo"
)

func (s *session) replay(ctx context.Context) {
	history := s.opened.Runner.History()
	for _, e := range history {
		user := e.Message.Role == message.RoleUser
		s.calls.role(e.Message.ID, e.Message.Role)
		for i := range e.Parts {
			p := &e.Parts[i]
			switch p.Type {
			case message.PartText:
				if p.Text == "" {
					continue
				}
				if user {
					s.notify(ctx, sdk.UpdateUserMessageText(p.Text))
				} else {
					s.notify(ctx, sdk.UpdateAgentMessageText(p.Text))
				}
			case message.PartReasoning:
				if p.Text != "" {
					s.notify(ctx, sdk.UpdateAgentThoughtText(p.Text))
				}
			case message.PartTool:
				if p.Tool == nil {
					continue
				}
				for _, u := range s.calls.update(p) {
					s.notify(ctx, u)
				}
			}
		}
	}
	if l := todo.Latest(history); len(l) > 0 {
		s.notify(ctx, planUpdate(l))
	}
}
