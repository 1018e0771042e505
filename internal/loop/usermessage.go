package loop

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxloop/agent/internal/context/tokens"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
)

// A user message is one write: the message, its parts and, for the first
// one of a session, the session's title, in one transaction
// (storage.Store.AddUserMessage), so that nothing but that write stands
// between Enter and the first request.

// storeUserMessage writes m and its parts, with the session's title made
// from first when the session has none yet and m is the user's (title is
// then that title).
func (s *sessionState) storeUserMessage(ctx context.Context, store *storage.Store, m *message.Message, parts []*message.Part, first string, synthetic bool) (sess *message.Session, title string, err error) {
	s.sessWrite.Lock()
	defer s.sessWrite.Unlock()
	if !synthetic {
		s.mu.Lock()
		if s.sess.Title == "" {
			title = TitleFrom(first)
		}
		s.mu.Unlock()
	}
	if s.unsaved {
		s.mu.Lock()
		row := s.sess
		s.mu.Unlock()
		var lease *storage.Lease
		if sess, lease, err = store.CreateSessionWithMessage(ctx, &row, m, parts, title); err != nil {
			return nil, "", err
		}
		s.lease, s.unsaved = lease, false
	} else if sess, err = store.AddUserMessage(ctx, m, parts, title); err != nil {
		return nil, "", err
	}
	if title != "" {
		s.mu.Lock()
		s.sess.Title = title
		s.mu.Unlock()
	}
	return sess, title, nil
}

// firstText is the text of the first text part.
func firstText(parts []*message.Part) string {
	for _, p := range parts {
		if p.Type == message.PartText {
			return p.Text
		}
	}
	return ""
}

// Stored reports whether the session's row is in the database: false only
// while a new session's row waits for its first message
// (Options.RowOnFirstMessage).
func (r *Runner) Stored() bool { return r.state.stored() }

// addUserMessage persists a user message and appends it to the history.
// A non-synthetic message starts a new turn; the first one of a session
// also gives it its title, written with the message in one transaction.
// Images, if any, are attached after the text and the @mentions.
func (r *Runner) addUserMessage(ctx context.Context, text string, synthetic bool, images ...*message.FileState) error {
	extra := ""
	if !synthetic {
		var err error
		if extra, err = r.hooks.prompt(ctx, text); err != nil {
			return err
		}
	}
	m := message.Message{SessionID: r.state.sess.ID, Role: message.RoleUser, Synthetic: synthetic, Model: r.mp.model}
	m.FinishedAt = time.Now()
	parts := []*message.Part{{Type: message.PartText, Text: text}}
	if !synthetic {
		parts = r.inbox.parts(ctx, text) // @mentions resolved now (mention.go)
	}
	parts = append(parts, imageParts(images)...)
	first := firstText(parts)
	sess, title, err := r.state.storeUserMessage(ctx, r.store, &m, parts, first, synthetic)
	if err != nil {
		return fmt.Errorf("save user message: %w", err)
	}
	stored := make([]message.Part, len(parts))
	for i, p := range parts {
		stored[i] = *p
	}
	r.userMessageAdded(ctx, m, stored, synthetic)
	if title != "" {
		r.ev.emit(message.Event{Type: message.EventSessionUpdated, SessionID: sess.ID, Session: sess})
		r.titles.request(first, title)
	}
	return r.hooks.addPromptContext(ctx, extra)
}

// userMessageAdded does what follows a stored user message: events, the
// history, the calculator, and for one the user wrote the doom guard and
// the title.
func (r *Runner) userMessageAdded(ctx context.Context, m message.Message, parts []message.Part, synthetic bool) {
	r.ev.emit(message.Event{Type: message.EventMessageUpdated, SessionID: r.state.sess.ID, Message: &m})
	text := ""
	for i := range parts {
		r.ev.emit(message.Event{Type: message.EventPartUpdated, SessionID: r.state.sess.ID, Part: &parts[i]})
		if parts[i].Type == message.PartText && text == "" {
			text = parts[i].Text
		}
	}
	r.state.mu.Lock()
	r.state.history = append(r.state.history, message.Entry{Message: m, Parts: parts})
	r.state.mu.Unlock()
	r.calcp.Load().AddText(tokens.UserContent(parts))
	r.calcp.Load().AddTokens(tokens.TokensPerMessage + tokens.ImagesCost(parts))
	if !synthetic {
		r.stepper.doom.reset()
		r.state.mu.Lock()
		untitled := r.state.sess.Title == ""
		r.state.mu.Unlock()
		if untitled {
			title := TitleFrom(text)
			setTitle(ctx, r.state, r.store, r.ev, title)
			r.titles.request(text, title)
		}
	}
}

// setTitle gives the session its title and announces it.
func setTitle(ctx context.Context, s *sessionState, st *storage.Store, ev emitter, title string) {
	row, err := s.write(ctx, st, func(s *message.Session) error { s.Title = title; return nil })
	if err == nil {
		ev.emit(message.Event{Type: message.EventSessionUpdated, SessionID: row.ID, Session: &row})
	}
}

// TitleFrom makes a session title from the first user message: its first
// non-empty line, trimmed to at most 60 characters at a word boundary.
func TitleFrom(text string) string {
	text = strings.TrimPrefix(strings.TrimSpace(text), PlanNote) // the user's words, not plan mode's note
	line := ""
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	line = strings.Join(strings.Fields(line), " ")
	const maxRunes = 60
	if utf8.RuneCountInString(line) <= maxRunes {
		return line
	}
	runes := []rune(line)[:maxRunes]
	cut := string(runes)
	if i := strings.LastIndex(cut, " "); i > maxRunes/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}
