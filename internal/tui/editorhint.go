package tui

// The editor's placeholder says what Enter does now: it sends when the
// agent is idle; while it works Enter steers the running turn and Tab
// queues for after it (steer.go), so the hint says that instead.

const (
	idleEditorHint = "Message the agent · / for commands · enter sends, ctrl+j newline"
	busyEditorHint = "Message the agent · enter steers the running turn · tab queues for after it"
)

// editorHint is the placeholder of an empty editor.
func editorHint(busy bool) string {
	if busy {
		return busyEditorHint
	}
	return idleEditorHint
}
