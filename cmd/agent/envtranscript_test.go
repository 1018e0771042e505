package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// TestTranscriptShowsTheGitStatusApart: the git status the agent sent
// with a user message is in the transcript, after the user's words and
// marked as the agent's, in a fence.
func TestTranscriptShowsTheGitStatusApart(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	hist := []message.Entry{{Message: message.Message{Role: message.RoleUser, CreatedAt: at}, Parts: []message.Part{
		{Type: message.PartText, Text: "and now the tests"},
		{Type: message.PartFile, File: &message.FileState{Kind: message.AttachEnv, Path: "git status", Content: "## main\n M main.go"}},
	}}}
	var b bytes.Buffer
	if err := writeTranscript(&b, &message.Session{ID: "s"}, hist, transcriptOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	words, note := strings.Index(out, "and now the tests"), strings.Index(out, "_Sent by the agent with this message")
	if words < 0 || note < words || !strings.Contains(out[note:], "```\n## main\n M main.go\n```") {
		t.Errorf("transcript:\n%s", out)
	}
}
