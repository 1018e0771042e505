package tui

import "testing"

// A file the agent skipped (safefile's "PATH is skipped: REASON") is a
// warning in the chat, like checkpoints that are off.
func TestSkippedFileNoteIsAWarning(t *testing.T) {
	if k := noteKind("/repo/AGENTS.md is skipped: not a regular file (a named pipe (FIFO))"); k != noticeWarn {
		t.Errorf("noteKind = %v, want noticeWarn", k)
	}
	if k := noteKind("checkpoints: finished a restore"); k != noticeInfo {
		t.Errorf("noteKind of an ordinary note = %v", k)
	}
}
