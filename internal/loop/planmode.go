package loop

// Plan mode in the loop (internal/plan decides; this file wires it). The
// tool table offers what the mode allows (offered, via planOffer: the
// filtered registry is made once per registry and mode, so a request's
// tools array stays the same from step to step); every call is judged
// again as it runs (runOne asks Options.Mode.Refusal before the
// permission check and the hooks, so a refused call runs nothing and asks
// nothing); tool_search searches only what the mode allows (the extra
// tools pass through plan.Source). A turn that ends normally in plan mode
// has its final answer stored as a plan part (PartPlan) on that answer's
// message: LatestPlan finds it, SavePlanEdit replaces its text, and
// ExecuteMessage is the message that approves it.

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/plan"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// planOffer caches the registry plan mode offers from one registry.
type planOffer struct {
	mu   sync.Mutex
	from *tools.Registry
	reg  *tools.Registry
	// wasOn is the mode switched last saw.
	wasOn bool
}

// switched reports whether the mode changed since it was last asked.
func (po *planOffer) switched(m *plan.Mode) bool {
	on := m.On()
	po.mu.Lock()
	defer po.mu.Unlock()
	changed := on != po.wasOn
	po.wasOn = on
	return changed
}

// offer is off in the default mode, and what plan mode offers of it in
// plan mode.
func (po *planOffer) offer(m *plan.Mode, off *tools.Registry) *tools.Registry {
	if !m.On() {
		return off
	}
	po.mu.Lock()
	defer po.mu.Unlock()
	if po.from != off {
		po.from, po.reg = off, new(tools.Registry).With(m.Offer(off.Tools())...)
	}
	return po.reg
}

// PlanNote opens the message that starts a turn in plan mode: the model
// learns the mode from it (the system prompt stays the same, for the
// provider's cache), and the user sees what it was told.
const PlanNote = "[Plan mode: only read-only tools run. Investigate, then answer with a step-by-step plan for the user to approve; change nothing.]"

// planNote is text as a turn in mode m starts with it.
func planNote(m *plan.Mode, text string) string {
	if !m.On() {
		return text
	}
	return PlanNote + "\n\n" + text
}

// planRefused is the result of a call plan mode refused.
func planRefused(reg *tools.Registry, env *tools.Env, call tools.Call, refusal string) tools.Result {
	return tools.Result{Output: refusal, Title: reg.Title(env, call), IsError: true,
		Metadata: map[string]any{"plan_mode": "refused"}}
}

// recordPlan stores the final answer of a turn that ended normally in plan
// mode as its plan part, and announces it. A turn with no final text
// stores nothing.
func recordPlan(ctx context.Context, store *storage.Store, st *sessionState, emit func(message.Event), m *plan.Mode, res TurnResult) {
	if !m.On() || res.Err != nil || res.FinishReason == FinishCancelled || res.FinishReason == FinishDoomLoop ||
		res.FinishReason == FinishStopped || res.FinishReason == FinishError {
		return
	}
	h := st.historyCopy()
	if len(h) == 0 || h[len(h)-1].Message.Role != message.RoleAssistant {
		return
	}
	last := h[len(h)-1]
	text := finalText(last)
	if text == "" {
		return
	}
	p := message.Part{SessionID: last.Message.SessionID, MessageID: last.Message.ID, Type: message.PartPlan, Text: text}
	if err := store.UpsertPart(ctx, &p); err != nil {
		st.addNote(fmt.Sprintf("save the plan: %v", err))
		return
	}
	st.editHistory(func(h []message.Entry) []message.Entry {
		for i := len(h) - 1; i >= 0; i-- {
			if h[i].Message.ID == p.MessageID {
				h[i].Parts = append(h[i].Parts, p)
				break
			}
		}
		return h
	})
	emit(message.Event{Type: message.EventPartUpdated, SessionID: p.SessionID, Part: &p})
}

// finalText is the text parts of an assistant message, joined.
func finalText(e message.Entry) string {
	var b strings.Builder
	for _, p := range e.Parts {
		if p.Type == message.PartText {
			b.WriteString(p.Text)
		}
	}
	return strings.TrimSpace(b.String())
}

// LatestPlan is the newest plan part of a session's history (not taken
// back by a rewind); false when it has none.
func LatestPlan(h []message.Entry) (message.Part, bool) {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Message.Rewound() {
			continue
		}
		for j := len(h[i].Parts) - 1; j >= 0; j-- {
			if p := h[i].Parts[j]; p.Type == message.PartPlan {
				return p, true
			}
		}
	}
	return message.Part{}, false
}

// SavePlanEdit replaces the text of the plan part p with text (the
// user's edit: /plan edit). An empty text is refused: the plan is kept.
func SavePlanEdit(ctx context.Context, store *storage.Store, p message.Part, text string) (message.Part, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return p, fmt.Errorf("the edited plan is empty; the plan is kept as it was")
	}
	p.Text = text
	if err := store.UpsertPart(ctx, &p); err != nil {
		return p, fmt.Errorf("save the edited plan: %w", err)
	}
	return p, nil
}

// ExecuteMessage is the user message that approves plan and asks for it
// to be carried out (approve and run; agent run -c --execute).
func ExecuteMessage(plan string) string {
	return "The plan is approved and plan mode is off: carry it out now.\n\n" + plan
}
