package loop

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

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
//
// A message the user wrote (with no hook's context to add after it) is
// in the history when it returns and its write goes on beside the turn
// (usercommit.go): the write is returned, for the turn to wait for
// before it writes. Any other is written before it returns (the write
// returned is then nil). Either waits first for the write of the user
// message before it that ctx carries.
func (r *Runner) addUserMessage(ctx context.Context, text string, synthetic bool, images ...*message.FileState) (*userCommit, error) {
	if err := awaitUserCommit(ctx); err != nil {
		return nil, err
	}
	extra := ""
	if !synthetic {
		var err error
		if extra, err = r.hooks.prompt(ctx, text); err != nil {
			return nil, err
		}
	}
	ts := time.Now()
	m := message.Message{ID: message.NewID(), SessionID: r.state.sess.ID, Role: message.RoleUser, Synthetic: synthetic, Model: r.mp.model,
		CreatedAt: ts, UpdatedAt: ts, FinishedAt: ts}
	parts := []*message.Part{{Type: message.PartText, Text: text}}
	if !synthetic {
		parts = r.inbox.parts(ctx, text) // @mentions resolved now (mention.go)
	}
	parts = append(parts, imageParts(images)...)
	stored := make([]message.Part, len(parts))
	for i, p := range parts {
		// The ids and times the store would give, given here: the
		// history has the message before the store has it.
		p.SessionID, p.MessageID = m.SessionID, m.ID
		if p.ID == "" {
			p.ID = message.NewID()
		}
		if p.CreatedAt.IsZero() {
			p.CreatedAt = ts
		}
		p.UpdatedAt = ts
		stored[i] = *p
	}
	first := firstText(parts)
	write := func() error {
		sess, title, err := r.state.storeUserMessage(context.WithoutCancel(ctx), r.store, &m, parts, first, synthetic)
		if err != nil {
			return fmt.Errorf("save user message: %w", err)
		}
		emitUserMessage(r.ev, m, stored)
		if title != "" {
			r.ev.emit(message.Event{Type: message.EventSessionUpdated, SessionID: sess.ID, Session: sess})
			r.titles.request(first, title)
		}
		return nil
	}
	if synthetic || extra != "" {
		if err := write(); err != nil {
			return nil, err
		}
		appendUserEntry(r.state, r.calcp.Load(), m, stored)
		if !synthetic {
			r.stepper.doom.reset()
		}
		return nil, r.hooks.addPromptContext(ctx, extra)
	}
	appendUserEntry(r.state, r.calcp.Load(), m, stored)
	r.stepper.doom.reset()
	return startCommit(m.ID, write), nil
}

// userMessageAdded does what follows a stored user message: events, the
// history, the calculator, and for one the user wrote the doom guard and
// the title.
func (r *Runner) userMessageAdded(ctx context.Context, m message.Message, parts []message.Part, synthetic bool) {
	text := emitUserMessage(r.ev, m, parts)
	appendUserEntry(r.state, r.calcp.Load(), m, parts)
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
