package tui

// The chat's hold on the session's background processes (package jobs,
// shared with the runners through Options.Loop.Jobs): the status line's
// badge, /jobs (the drawer of overlay/jobs.go; /jobs kill stops them all)
// and Esc twice, which stops them all. They end with the session anyway:
// the runner's Close stops them.

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/jobs"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// escTwiceWindow is how soon a second Esc must follow the first to stop
// the background processes.
const escTwiceWindow = 2 * time.Second

// escTwice remembers the last Esc.
type escTwice struct{ last time.Time }

// press records an Esc at now and says whether it is the second of two
// within escTwiceWindow (which then starts a new pair).
func (e *escTwice) press(now time.Time) bool {
	second := !e.last.IsZero() && now.Sub(e.last) <= escTwiceWindow
	e.last = now
	if second {
		e.last = time.Time{}
	}
	return second
}

// jobsOnEsc is what an Esc does to the background processes: the second
// of two stops them all; the first, when it did nothing else (interrupted
// is nil), says how. flash shows a hint.
func jobsOnEsc(t *jobs.Table, e *escTwice, interrupted tea.Cmd, flash func(string, time.Duration) tea.Cmd) tea.Cmd {
	second := e.press(time.Now())
	n := t.Running()
	switch {
	case n == 0:
		return interrupted
	case second:
		return tea.Batch(interrupted, asStopped(overlay.StopJobs(t, "")))
	case interrupted == nil:
		return flash(fmt.Sprintf("esc again to stop %d background process%s (/jobs lists them)", n, pluralES(n)), escTwiceWindow)
	}
	return interrupted
}

// jobsCommand is /jobs: the drawer, or with "kill" every job stopped.
func jobsCommand(t *jobs.Table, arg string) (drawer, tea.Cmd) {
	switch a := strings.TrimSpace(arg); {
	case strings.EqualFold(a, "kill"):
		return nil, asStopped(overlay.StopJobs(t, ""))
	case a != "":
		if strings.HasPrefix(strings.ToLower(a), "kill ") {
			return nil, asStopped(overlay.StopJobs(t, strings.TrimSpace(a[5:])))
		}
	}
	return jobsDrawer{overlay.NewJobsDrawer()}, nil
}

// jobsDrawer puts overlay.JobsDrawer in the chat's drawer slot.
type jobsDrawer struct{ *overlay.JobsDrawer }

func (d jobsDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	res, cmd := d.Update(chatHost{m}, m.opt.Loop.Jobs, msg)
	return res, asStopped(cmd)
}

// asStopped turns a stop's overlay.JobsStoppedMsg into the chat's.
func asStopped(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		msg := cmd()
		if s, ok := msg.(overlay.JobsStoppedMsg); ok {
			return jobsStopped(s)
		}
		return msg
	}
}

func (d jobsDrawer) view(m *Model, width, height int) []string {
	return d.View(chatHost{m}, m.opt.Loop.Jobs.List(), width, height)
}

// jobsStopped is overlay.JobsStoppedMsg applied to the chat: a notice.
type jobsStopped overlay.JobsStoppedMsg

func (s jobsStopped) apply(m *Model) tea.Cmd {
	if len(s.IDs) == 0 {
		return m.setFlash("no background process was running", 2*time.Second)
	}
	m.chat.notice(noticeInfo, fmt.Sprintf("stopped background process%s %s", pluralES(len(s.IDs)), strings.Join(s.IDs, ", ")), "")
	return nil
}

// jobsChanged says the table changed: the status line is drawn again (any
// message redraws it) and the next change is awaited.
type jobsChanged struct {
	t    *jobs.Table
	done <-chan struct{}
}

func (c jobsChanged) apply(*Model) tea.Cmd { return watchJobs(c.t, c.done) }

// watchJobs waits for the next change of t, until done.
func watchJobs(t *jobs.Table, done <-chan struct{}) tea.Cmd {
	ch := t.Changes()
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		select {
		case <-ch:
			return jobsChanged{t: t, done: done}
		case <-done:
			return nil
		}
	}
}

// jobsBadge is the status line's count of running background processes.
func jobsBadge(th *theme, t *jobs.Table) string {
	n := t.Running()
	if n == 0 {
		return ""
	}
	return th.AccentText.Render(fmt.Sprintf("⚙ %d bg", n))
}

func pluralES(n int) string {
	if n == 1 {
		return ""
	}
	return "es"
}

// maxBackground is tools.bash.max_background of cfg (nil: the default).
func maxBackground(cfg *config.Config) int {
	if cfg == nil {
		return 0
	}
	return cfg.Tools.BashMaxBackground
}
