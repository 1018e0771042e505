package main

// What `agent run`'s text output says of a step that changed files: which
// step (numbered from 1 in the order the run's steps started), how many
// files and lines, and the files' names:
//
//	· step 3 changed 2 files (+6 −1 lines): b.go, c.go
//
// The counts are the step's patch part's (git's, as the chat's patch line
// shows them); a name is stripped of terminal controls, and past
// maxNamedFiles the rest are counted, not named.

import (
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
)

// maxNamedFiles is how many files a step's change line names.
const maxNamedFiles = 5

// stepNumbers numbers a run's steps by their messages, in the order their
// step-start parts arrive. The zero value is ready; not safe for
// concurrent use (the event writer holds its lock).
type stepNumbers struct {
	byMessage map[string]int
}

// start notes a step's start (again for a retried attempt: no new number).
func (s *stepNumbers) start(messageID string) {
	if s.byMessage == nil {
		s.byMessage = map[string]int{}
	}
	if _, ok := s.byMessage[messageID]; !ok {
		s.byMessage[messageID] = len(s.byMessage) + 1
	}
}

// of is the number of the step of messageID, 0 when it is not known.
func (s *stepNumbers) of(messageID string) int { return s.byMessage[messageID] }

// changeLine is the text output's line for a step's patch; step 0 is a
// step whose start was not seen.
func changeLine(step int, ps *message.PatchState) string {
	added, deleted := ps.Lines()
	n := len(ps.Files)
	who := "a step"
	if step > 0 {
		who = fmt.Sprintf("step %d", step)
	}
	files := "files"
	if n == 1 {
		files = "file"
	}
	line := fmt.Sprintf("· %s changed %d %s (+%d −%d lines)", who, n, files, added, deleted)
	names := make([]string, 0, min(n, maxNamedFiles))
	for _, f := range ps.Files[:min(n, maxNamedFiles)] {
		names = append(names, oneLine(termsafe.Strip(f.Path), 100))
	}
	if len(names) > 0 {
		line += ": " + strings.Join(names, ", ")
	}
	if n > maxNamedFiles {
		line += fmt.Sprintf(" and %d more", n-maxNamedFiles)
	}
	return line
}
