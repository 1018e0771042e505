package tui

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// TestEnvChipIsOneLineApartFromTheUsersText: the git status the agent sent
// with a message shows as one line naming it, not as the status's text
// (which could carry a file name's escape sequences) nor as an @mention.
func TestEnvChipIsOneLineApartFromTheUsersText(t *testing.T) {
	rc := &renderCtx{width: 100, th: newTheme(true)}
	it := attachmentItem(message.FileState{Kind: message.AttachEnv, Path: "git status", Content: "## main\n M evil\x1b]0;pwned\x07.go"})
	lines := it.lines(rc)
	text := strings.Join(lines, "\n")
	if !strings.Contains(text, "git status changed") || strings.Contains(text, "@git status") || strings.Contains(text, "evil") || strings.Contains(text, "\x1b]") {
		t.Errorf("env chip:\n%q", text)
	}
}
