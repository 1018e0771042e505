package loop

// Pins: facts the user pinned to the session (/pin, `agent pins`). Every
// request carries them verbatim in one user message right after the
// summary — before the first message while there is no summary — so a
// compaction never summarises them away: they are not part of the history
// it summarises. The calculator counts them as their own row
// (tokens.Breakdown.Pins).

import (
	"context"
	"strings"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
)

// PinsPreamble introduces the pinned facts to the model.
const PinsPreamble = "The user pinned these facts for the whole conversation; they stay true and are repeated here word for word:\n"

// PinsText is the message that carries pins to the model ("" for none).
func PinsText(pins []message.Pin) string {
	if len(pins) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(PinsPreamble)
	for _, p := range pins {
		b.WriteString("\n<pinned>\n")
		b.WriteString(strings.TrimSpace(p.Text))
		b.WriteString("\n</pinned>\n")
	}
	return b.String()
}

// pinsTokens estimates the pins message.
func pinsTokens(pins []message.Pin, est tokens.Estimator) int64 {
	t := PinsText(pins)
	if t == "" {
		return 0
	}
	return int64(est.Count(t)) + tokens.TokensPerMessage
}

// pinsAt is where the pins message goes in conv (the converted
// conversation): right after the summary when the history has one (it is
// sent first, or after the head a "summarise after here" kept), else first.
func pinsAt(conv []openai.ChatCompletionMessage, summarised bool) int {
	if summarised {
		for i := len(conv) - 1; i >= 0; i-- {
			if conv[i].Role == openai.ChatMessageRoleUser && strings.HasPrefix(conv[i].Content, SummaryPreamble) {
				return i + 1
			}
		}
	}
	return 0
}

// Pins returns the session's pins, oldest first.
func (r *Runner) Pins() []message.Pin { return r.state.pinsCopy() }

// pinsNow is the pins message and its estimate for the next request.
func pinsNow(pins []message.Pin, est tokens.Estimator) (string, int64) {
	return PinsText(pins), pinsTokens(pins, est)
}

// AddPin pins text to the session (messageID: the message it was taken
// from, if any). The next request carries it.
func (r *Runner) AddPin(ctx context.Context, text, messageID string) (message.Pin, error) {
	p := message.Pin{SessionID: r.state.id(), Text: strings.TrimSpace(text), MessageID: messageID}
	if err := r.store.AddPin(ctx, &p); err != nil {
		return message.Pin{}, err
	}
	r.state.addPin(p)
	pinsChanged(ctx, r.store, r.calcp.Load(), r.state, r.mp.est, "pin_added", p)
	return p, nil
}

// EditPin rewrites a pin's text.
func (r *Runner) EditPin(ctx context.Context, id, text string) error {
	text = strings.TrimSpace(text)
	if err := r.store.UpdatePin(ctx, id, text); err != nil {
		return err
	}
	p := r.state.editPin(id, text)
	pinsChanged(ctx, r.store, r.calcp.Load(), r.state, r.mp.est, "pin_edited", p)
	return nil
}

// RemovePin unpins a pin (it stays in the database, stamped removed).
func (r *Runner) RemovePin(ctx context.Context, id string) error {
	if err := r.store.RemovePin(ctx, id); err != nil {
		return err
	}
	p := r.state.removePin(id)
	pinsChanged(ctx, r.store, r.calcp.Load(), r.state, r.mp.est, "pin_removed", p)
	return nil
}

// pinsChanged counts the pins again and logs the change (`agent
// inspect`). The caller (the TUI, `agent pins`) says what it did.
func pinsChanged(ctx context.Context, st *storage.Store, calc *tokens.Calculator, s *sessionState, est tokens.Estimator, kind string, p message.Pin) {
	calc.SetPins(pinsTokens(s.pinsCopy(), est))
	_ = st.LogEvent(context.WithoutCancel(ctx), s.id(), kind, p)
}
