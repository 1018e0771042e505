package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tui"
)

// runTUI opens the chat in the current directory: a new session, the
// latest one (-c) or the one named (--session). Without credentials it
// opens anyway and says how to set them.
func runTUI(ctx context.Context, g *globalFlags) error {
	a, err := loadApp(g)
	if err != nil {
		return err
	}
	if g.session != "" && g.cont {
		return usageError("--session and --continue are mutually exclusive")
	}
	// A closed terminal (SIGHUP) ends the chat like a quit: the running
	// turn is cancelled and its tools' process groups killed.
	ctx, stop := interruptible(ctx)
	defer stop()
	// MCP servers connect in the background: the first frame does not
	// wait for them, and their tools join the session as they arrive.
	a.startMCP(ctx)
	defer a.closeMCP()
	// A project's server that waits for approval is asked about in a
	// dialog once the chat is idle (no start-up notice).
	notices := append([]string(nil), a.cfg.Warnings...)
	if w, err := a.setupSandbox(""); err != nil {
		return err
	} else if w != "" {
		notices = append(notices, w)
	}
	// The first run's sandbox note probes bubblewrap (a process): beside
	// the first frame, not before it. Inline mode shows it with the
	// welcome: a notice arriving under the welcome's live frame is printed
	// out of step with it (the welcome and its frame are not printed yet).
	inline := g.inline || a.cfg.UI.Mode == config.UIInline
	skillCatalog := a.skillCatalog(a.dir)
	late := func() []string {
		var out []string
		if n := sandboxAnnouncement(a.cfg.Sandbox, a.cfg.DataDir, ""); n != "" {
			out = append(out, n)
		}
		if n := skillsWaiting(skillCatalog, "/skills"); n != "" { // skills.go
			out = append(out, n)
		}
		return out
	}
	if inline {
		notices, late = append(notices, late()...), nil
	}
	opt := tui.Options{
		Loop:        a.loopOptions(nil, nil), // the chat sets the permissions with its dialog
		PermModes:   permModes(a.cfg.Permissions),
		Setup:       a.cfg.CheckCredentials(),
		Notices:     notices,
		LateNotices: late,
		Version:     version,
		Inline:      inline,
		Commands:    a.commandCatalog(), // reads nothing until the first "/"
		MCP:         a.mcp,
		Approvals:   approval.Open(a.cfg.DataDir),
		DeleteSession: func(ctx context.Context, st *storage.Store, s *message.Session) error {
			return a.deleteSession(ctx, st, s, func(string) {}) // leftover checkpoints go with the daily prune
		},
	}
	if g.session == "" && !g.cont {
		// A new chat's first frame needs no database: it opens behind it.
		opt.OpenStore = a.openDriving
		return tui.Run(ctx, opt)
	}
	st, err := a.openDriving(ctx)
	if err != nil {
		return err
	}
	defer st.Close()

	opt.Loop.Store = st
	sessionID := g.session
	if g.cont {
		latest, err := st.LatestSession(ctx, a.dir)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			opt.Notices = append(opt.Notices, fmt.Sprintf("No earlier session in %s: this is a new one.", a.dir))
		case err != nil:
			return err
		default:
			sessionID = latest.ID
		}
	} else {
		s, err := st.GetSession(ctx, sessionID)
		if err != nil {
			return fmt.Errorf("session %s: %w", sessionID, err)
		}
		sessionID = s.ID
	}
	opt.SessionID = sessionID
	return tui.Run(ctx, opt)
}
