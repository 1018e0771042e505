package tui

import (
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// Messages of the chat's own commands, named for what happened.
type (
	openedMsg struct {
		gen     int
		runner  *loop.Runner
		history []message.Entry
		start   chatStart // earlier.go: what lies above history
		sess    message.Session
		snap    tokens.Reading
		err     error
	}
	sentMsg struct {
		text   string
		images []*message.FileState
		queued bool
		err    error
	}
	cancelledMsg struct {
		queued []message.QueuedMessage
		err    error
	}
	compactedMsg struct {
		err error
	}
	pulledBackMsg struct {
		text   string
		images []*message.FileState
		ok     bool
		err    error
	}
	modelSetMsg struct {
		name string
		err  error
	}
	summaryLoadedMsg struct {
		id, text string
	}
	renderedMsg struct {
		jobs  []mdJob
		lines [][]string
	}
	queueLoadedMsg struct {
		gen   int
		queue []message.QueuedMessage
	}
	tickMsg      struct{ gen int }
	tailDueMsg   struct{ owner *textItem }
	flashDoneMsg struct{ id int }
)

// opFailedMsg says an edit the user asked for failed (what, and why).
type opFailedMsg = overlay.OpFailedMsg
