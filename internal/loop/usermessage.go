package loop

import (
	"context"

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
func (r *Runner) storeUserMessage(ctx context.Context, m *message.Message, parts []*message.Part, first string, synthetic bool) (sess *message.Session, title string, err error) {
	r.sessWrite.Lock()
	defer r.sessWrite.Unlock()
	if !synthetic {
		r.mu.Lock()
		if r.sess.Title == "" {
			title = TitleFrom(first)
		}
		r.mu.Unlock()
	}
	if r.unsaved {
		r.mu.Lock()
		row := r.sess
		r.mu.Unlock()
		var lease *storage.Lease
		if sess, lease, err = r.store.CreateSessionWithMessage(ctx, &row, m, parts, title); err != nil {
			return nil, "", err
		}
		r.lease, r.unsaved = lease, false
	} else if sess, err = r.store.AddUserMessage(ctx, m, parts, title); err != nil {
		return nil, "", err
	}
	if title != "" {
		r.mu.Lock()
		r.sess.Title = title
		r.mu.Unlock()
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
func (r *Runner) Stored() bool {
	r.sessWrite.Lock()
	defer r.sessWrite.Unlock()
	return !r.unsaved
}
