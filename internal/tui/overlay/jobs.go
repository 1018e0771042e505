package overlay

// The /jobs drawer: the session's background processes (bash with
// background: true), each with its id, state, age and command, to stop one
// (k) or all (K). The chat passes the jobs in as they stand with each
// Update and View (they start and end under the drawer); stopping runs off
// the Update loop and comes back as a JobsStoppedMsg.

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/jobs"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/theme"
)

// JobsStoppedMsg says which background processes a stop ended (the ids of
// those still running when it came).
type JobsStoppedMsg struct{ IDs []string }

// StopJobs stops the job id ("" stops them all) off the Update loop.
func StopJobs(t *jobs.Table, id string) tea.Cmd {
	return func() tea.Msg {
		if id == "" {
			var ids []string
			for _, j := range t.KillAll() {
				ids = append(ids, j.ID)
			}
			return JobsStoppedMsg{IDs: ids}
		}
		j, err := t.Kill(id)
		if err != nil {
			return OpFailedMsg{What: "stop " + id, Err: err}
		}
		return JobsStoppedMsg{IDs: []string{j.ID}}
	}
}

// JobsDrawer lists the background processes.
type JobsDrawer struct{ sel int }

// NewJobsDrawer opens on the oldest job.
func NewJobsDrawer() *JobsDrawer { return &JobsDrawer{} }

// Update acts on t's jobs.
func (d *JobsDrawer) Update(h Host, t *jobs.Table, msg tea.Msg) (Result, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return Keep, nil
	}
	list := t.List()
	d.sel = min(max(d.sel, 0), max(len(list)-1, 0))
	switch k.String() {
	case "esc", "q", "enter":
		return Close, nil
	case "up":
		if d.sel > 0 {
			d.sel--
		}
	case "down":
		if d.sel < len(list)-1 {
			d.sel++
		}
	case "k", "d", "x", "delete":
		if len(list) > 0 {
			return Keep, StopJobs(t, list[d.sel].ID)
		}
	case "K":
		if len(list) > 0 {
			return Keep, StopJobs(t, "")
		}
	default:
		return Pass, nil
	}
	return Keep, nil
}

// View shows list, the jobs as they stand.
func (d *JobsDrawer) View(h Host, list []*jobs.Job, width, height int) []string {
	th := h.Theme()
	inner := max(10, width-4)
	d.sel = min(max(d.sel, 0), max(len(list)-1, 0))
	var body []string
	if len(list) == 0 {
		body = append(body, th.Dim.Render("no background processes: the model starts one with bash (background: true)"))
	}
	running := 0
	for i, j := range list {
		state := j.State()
		if j.Running() {
			running++
			state = "running " + JobAge(time.Since(j.Started))
		}
		row := fmt.Sprintf("%s  %s  %s", j.ID, state, termsafe.Strip(j.Command))
		row = theme.OneLine(row, inner-2)
		if i == d.sel {
			row = th.AccentText.Render("› " + row)
		} else {
			row = "  " + row
		}
		body = append(body, row)
	}
	title := fmt.Sprintf("Background processes (%d running)", running)
	return theme.Frame(th, title, theme.ClampBody(body, height, d.sel), "↑↓ select · k stop · K stop all · esc", width)
}

// JobAge is a job's running time, short: "12s", "3m", "2h5m".
func JobAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh%dm", int(d.Hours()), int(d.Minutes())%60)
}
