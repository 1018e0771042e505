package compact

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

// TestTranscriptCarriesTheNewestGitStatus: the git status a turn's message
// carried (message.AttachEnv) reaches the summariser, so a summary can keep
// it; only the newest, since each one replaces the one before.
func TestTranscriptCarriesTheNewestGitStatus(t *testing.T) {
	user := func(id, text, status string) message.Entry {
		return message.Entry{Message: message.Message{ID: id, Role: message.RoleUser}, Parts: []message.Part{
			{Type: message.PartText, Text: text},
			{Type: message.PartFile, File: &message.FileState{Kind: message.AttachEnv, Path: "git status", Content: status}},
		}}
	}
	blocks := Transcript([]message.Entry{user("01", "fix it", "## main\n M old.go"), user("02", "and test it", "## main\n M new.go")}, tokens.Chars{}, 0)
	all := strings.Join(blocks, "\n")
	if strings.Contains(all, "old.go") {
		t.Errorf("the older status is in the transcript:\n%s", all)
	}
	if len(blocks) != 2 || blocks[1] != "User: and test it\n"+tokens.EnvText("## main\n M new.go") {
		t.Errorf("transcript %q", blocks)
	}
}
