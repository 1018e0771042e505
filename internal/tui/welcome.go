package tui

// The welcome screen: what a new conversation starts from (the
// directory, its git branch, the model and its server, the version, the
// context window) and three tips. It is the first item of a fresh chat
// and goes with the first message sent.

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/gitcmd"
	"github.com/ctxloop/agent/internal/termsafe"
)

// branchTimeout bounds the git call that names the branch.
const branchTimeout = 2 * time.Second

// welcomeItem is the welcome screen.
type welcomeItem struct {
	version, dir, branch, model, server string
	window                              int64
	ver                                 int
	cache                               lineCache
}

func (w *welcomeItem) toggle() bool { return false }

func (w *welcomeItem) lines(rc *renderCtx) []string {
	if ls, ok := w.cache.get(rc, w.ver); ok {
		return ls
	}
	th := rc.th
	version := w.version
	if version == "" {
		version = "dev"
	}
	out := []string{th.StatusModel.Render("agent") + th.Dim.Render(" "+version), ""}
	// row lays out a value (stripped of terminal controls) and a dimmed
	// note after it.
	row := func(label, value, note string) {
		if value == "" {
			return
		}
		value = termsafe.Strip(value)
		for i, l := range wrapText(value+note, max(10, rc.width-13)) {
			if n := len(note); n > 0 && strings.HasSuffix(l, note) {
				l = l[:len(l)-n] + th.Dim.Render(note)
			}
			if i == 0 {
				out = append(out, th.Dim.Render(fmt.Sprintf("%-11s", label))+" "+l)
			} else {
				out = append(out, strings.Repeat(" ", 12)+l)
			}
		}
	}
	row("directory", w.dir, "")
	row("branch", w.branch, "")
	window := ""
	if w.window > 0 {
		window = " · " + formatTokens(w.window) + " context window"
	}
	row("model", w.model, window)
	row("server", w.server, "")
	out = append(out, "", th.Bold.Render("Tips"))
	for _, tip := range []string{
		"Type while the agent works: your messages queue and go in between its steps (ctrl+q edits the queue).",
		"/context shows where the context tokens go.",
		"/compact summarises the conversation now, with an optional focus.",
	} {
		for i, l := range wrapText(tip, max(10, rc.width-4)) {
			if i == 0 {
				out = append(out, th.AccentText.Render("• ")+l)
			} else {
				out = append(out, "  "+l)
			}
		}
	}
	return w.cache.put(rc, w.ver, append(out, ""))
}

// branchLoadedMsg names the git branch of the directory ("" outside a
// repository).
type branchLoadedMsg struct{ branch string }

// loadBranch names the branch of dir with git, bounded by branchTimeout:
// the short name, or the commit when HEAD is detached.
func loadBranch(dir string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), branchTimeout)
		defer cancel()
		if out, err := gitcmd.Output(ctx, dir, "symbolic-ref", "--short", "-q", "HEAD"); err == nil {
			return branchLoadedMsg{branch: strings.TrimSpace(string(out))}
		}
		if out, err := gitcmd.Output(ctx, dir, "rev-parse", "--short", "HEAD"); err == nil {
			return branchLoadedMsg{branch: "detached at " + strings.TrimSpace(string(out))}
		}
		return branchLoadedMsg{}
	}
}

// refresh brings the welcome screen up to date with the model a new
// session will use (as cfg knows it), the directory and the version; a
// nil screen is left alone.
func (w *welcomeItem) refresh(cfg *config.Config, model, dir, version string) {
	if w == nil {
		return
	}
	var window int64
	server := ""
	if cfg != nil {
		if info, known := cfg.ModelInfo(model); known {
			window = info.ContextWindow
		}
		server = cfg.BaseURL
	}
	if w.model != model || w.window != window || w.server != server || w.dir != dir || w.version != version {
		w.model, w.window, w.server, w.dir, w.version = model, window, server, dir, version
		w.ver++
	}
}

// showWelcome puts the welcome screen at the start of a fresh chat.
func (m *Model) showWelcome() {
	if m.welcome == nil {
		m.welcome = &welcomeItem{branch: m.branch}
	}
	m.chat.add(m.welcome)
	m.welcome.refresh(m.opt.Loop.Config, sessionModel(m.sess, m.opt.Loop.Config), m.opt.Loop.Dir, m.opt.Version)
}

// dropWelcome removes the welcome screen: the conversation starts.
func (m *Model) dropWelcome() {
	if m.welcome != nil {
		m.chat.remove(m.welcome)
		m.welcome = nil
	}
}
