package tui

// The user's editor ($EDITOR) for a text of the chat: the message being
// written (Ctrl+G), the summary (/summary edit) and the plan (/plan edit).
// The text is written to a private temporary file, the terminal is handed
// to the editor (tea.ExecProcess) and what the editor saved comes back to
// done; the file and its directory are removed after. An editor that fails
// leaves the text as it was: done gets the error and the original stays.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// execProcess hands the terminal to a process; tests replace it.
var execProcess = tea.ExecProcess

// userEditor is $EDITOR, or "" when it is not set.
func userEditor() string { return strings.TrimSpace(os.Getenv("EDITOR")) }

// editExternal edits text in editor on a temporary file called name and
// passes what was saved (or the error) to done.
func editExternal(editor, name, text string, done func(saved string, err error) tea.Msg) tea.Cmd {
	dir, err := os.MkdirTemp("", "agent-edit-")
	if err != nil {
		return func() tea.Msg { return done("", err) }
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		os.RemoveAll(dir)
		return func() tea.Msg { return done("", err) }
	}
	c := exec.Command("sh", "-c", editor+` "$1"`, "editor", path)
	return execProcess(c, func(err error) tea.Msg {
		defer os.RemoveAll(dir)
		if err != nil {
			return done("", fmt.Errorf("%s: %w", editor, err))
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return done("", err)
		}
		return done(string(b), nil)
	})
}

// messageEditedMsg is the message text back from the user's editor.
type messageEditedMsg struct {
	text string
	err  error
}

// editMessageExternal opens the editor's text in $EDITOR (Ctrl+G); the
// saved text replaces it, without the newline editors add at the end.
func editMessageExternal(ed *editor, setFlash func(string, time.Duration) tea.Cmd) tea.Cmd {
	editor := userEditor()
	if editor == "" {
		return setFlash("set $EDITOR to write the message in your editor", 3*time.Second)
	}
	return editExternal(editor, "message.md", ed.expand(ed.value()), func(saved string, err error) tea.Msg {
		return messageEditedMsg{text: strings.TrimRight(saved, "\n"), err: err}
	})
}

func (msg messageEditedMsg) apply(m *Model) tea.Cmd {
	if msg.err != nil {
		return m.setFlash("edit message: "+msg.err.Error(), 4*time.Second)
	}
	m.editor.setValue(msg.text)
	return nil
}
