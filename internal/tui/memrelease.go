package tui

// Opening a long session allocates far more than it keeps: the whole
// history decoded from the database, the request cache warmed from it,
// the chat's items built. Go returns the freed pages to the system only
// slowly (its scavenger), so a chat left idle after a resume would hold
// that peak as RSS for minutes. Once a session with a history has opened,
// releaseOpenPeak collects and returns the freed memory, on the command's
// own goroutine (the event loop goes on; a collection's pauses are short).

import (
	"runtime/debug"

	tea "charm.land/bubbletea/v2"
)

// releaseOpenPeakMinEntries is the history below which an open is not
// worth a collection.
const releaseOpenPeakMinEntries = 200

// releaseOpenPeak returns a command that gives the memory freed by an
// open of entries history entries back to the system; nil for a short
// history.
func releaseOpenPeak(entries int) tea.Cmd {
	if entries < releaseOpenPeakMinEntries {
		return nil
	}
	return func() tea.Msg {
		debug.FreeOSMemory()
		return nil
	}
}
