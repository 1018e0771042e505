package loop

// envcontext.go: the git status of a later turn as a part of that turn's
// user message, so that the system messages stay byte-identical for the
// session between real cache boundaries (cacheboundary.go).
//
// The contract:
//
//   - The system messages are made from the environment gathered for the
//     turn (directory, date, instruction files) with the git status of the
//     start of the session: the one the first turn gathered, stored
//     (gitStartKind) so that a resumed session makes the same messages.
//     They change only when a stable part does — an instruction file
//     edited, the date changed — and that change is a recorded `system`
//     boundary.
//   - At the start of a turn, when the git status gathered differs from
//     the one the model last saw (lastSeenStatus: the newest status part
//     it is sent, else the system message's), the user message that
//     starts the turn gains a part (message.AttachEnv) holding it. The
//     part is stored with the message, so every later request, in this
//     process or after a resume, sends the message as it was: the prefix
//     holds. A status part before a summary is not sent, so after a
//     compaction the next change is told again.
//   - The calculator counts the part (it is in the message); the chat
//     and the transcript show it apart from the user's words.

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
)

// gitStartKind is the event log row holding the git status a session's
// system messages carry (gitStartRow).
const gitStartKind = "system_git"

// gitStartRow is the git status of the start of a session, as recorded.
type gitStartRow struct {
	Status string `json:"status"`
}

// gitStatuses are the git statuses a session's prompt is made from.
type gitStatuses struct {
	// start is the status the system messages carry, that of the start
	// of the session: nil until gathered, or read back at Open
	// (storedGitStart); recorded, that it is stored.
	start    *string
	recorded bool
	// now is the status gathered for the turn.
	now string
}

// envPath is the Path of a status part: what the chat names it by.
const envPath = "git status"

// sessionEnv returns env with the git status of the start of the
// session, which the first call sets; env's own status becomes git.now,
// which statusNote.attach tells when it changed. The loop holding busy and
// Open call it.
func (s *sessionState) sessionEnv(env Environment) Environment {
	if s.git.start == nil {
		status := env.GitStatus
		s.git.start = &status
	}
	s.git.now = env.GitStatus
	env.GitStatus = *s.git.start
	return env
}

// storedGitStart is the git status recorded as a session's start; nil
// when none was (a new session, or one from before it was recorded).
func storedGitStart(ctx context.Context, st *storage.Store, sessionID string) *string {
	row, ok, err := st.LatestEventLogKind(ctx, sessionID, gitStartKind)
	if err != nil || !ok {
		return nil
	}
	var g gitStartRow
	if json.Unmarshal(row.Data, &g) != nil {
		return nil
	}
	return &g.Status
}

// lastSeenStatus is the git status the model last saw in history: that
// of the newest status part sent (neither rewound nor before the newest
// summary), else start, the system message's.
func lastSeenStatus(history []message.Entry, start string) string {
	for i := len(history) - 1; i >= 0; i-- {
		e := &history[i]
		if e.Message.Summary {
			break
		}
		if e.Message.Rewound() || e.Message.Role != message.RoleUser {
			continue
		}
		for j := len(e.Parts) - 1; j >= 0; j-- {
			if f := e.Parts[j].File; e.Parts[j].Type == message.PartFile && f != nil && f.Kind == message.AttachEnv {
				return f.Content
			}
		}
	}
	return start
}

// statusNote adds the status part to the message that starts a turn: its
// inputs are the Runner's.
type statusNote struct {
	state *sessionState
	store *storage.Store
	ev    emitter
	calc  *tokens.Calculator
}

// attach stores the turn's status part when the status gathered for the
// turn differs from the one the model last saw, and the newest message is
// the user's (the turn's). A failed write is noted and the turn goes on
// without it: the next turn tells the status again. The loop calls it
// holding busy.
func (n statusNote) attach(ctx context.Context) {
	s := n.state
	if s.git.start == nil || len(s.history) == 0 {
		return
	}
	last := s.history[len(s.history)-1]
	if m := last.Message; m.Role != message.RoleUser || m.Summary || m.Rewound() || tokens.IsMarker(last) {
		return
	}
	now := s.git.now
	if now == "" || now == lastSeenStatus(s.history, *s.git.start) {
		return // "": git did not answer (or the repository went): nothing to tell
	}
	ts := time.Now()
	p := &message.Part{SessionID: last.Message.SessionID, MessageID: last.Message.ID, Type: message.PartFile,
		CreatedAt: ts, File: &message.FileState{Kind: message.AttachEnv, Path: envPath, Content: now}}
	if err := awaitUserCommit(ctx); err != nil {
		return // the message is not stored: the turn ends at its next write
	}
	if err := n.store.UpsertPart(ctx, p); err != nil {
		if ctx.Err() == nil { // a cancelled turn sends nothing anyway
			n.ev.note("the git status was not sent with this message: " + err.Error())
		}
		return
	}
	last.Parts = append(slices.Clip(last.Parts), *p)
	s.replaceEntry(last)
	n.ev.emit(message.Event{Type: message.EventPartUpdated, SessionID: last.Message.SessionID, Part: p})
	n.calc.AddText("\n\n" + tokens.AttachmentText(p.File))
}
