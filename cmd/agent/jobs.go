package main

import (
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/jobs"
)

// stopJobs ends the background processes a headless run leaves running
// and says so: a line on stderr in both formats and, in JSON, a
// background_stopped event {jobs: [{id, command}]} before done.
func stopJobs(t *jobs.Table, w *eventWriter) {
	stopped := t.KillAll()
	if len(stopped) == 0 {
		return
	}
	names := make([]string, len(stopped))
	list := make([]map[string]any, len(stopped))
	for i, j := range stopped {
		names[i] = fmt.Sprintf("%s (%s)", j.ID, oneLineOf(j.Command, 80))
		list[i] = map[string]any{"id": j.ID, "command": j.Command}
	}
	w.notice(fmt.Sprintf("stopped %d background process(es) at exit: %s", len(stopped), strings.Join(names, ", ")))
	if w.json {
		w.mu.Lock()
		w.emit(map[string]any{"type": "background_stopped", "jobs": list})
		w.mu.Unlock()
	}
}
