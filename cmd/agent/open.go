package main

// How a command opens what it works on: the app (configuration, hooks),
// the database and the session named by --session or -c. openCommand is
// the one preamble of the commands that work on one existing session
// named by those flags. `agent run` and the chat, which may start a new
// session and start MCP servers and read git while the database opens,
// use its parts directly, as do the commands that take a session id as
// an argument: sessions show, export and rm (which say "there are no
// sessions yet" when there is no database) and sessions fork.

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/hooks"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// storeAccess is how a command opens the database.
type storeAccess int

const (
	// readOnly: storage.OpenReadOnly; the command never writes.
	readOnly storeAccess = iota
	// writing: storage.Open; the command writes but drives no turn.
	writing
	// driving: openDriving; the command drives the session (a
	// compaction, a rewind), with the background upkeep of saved
	// outputs and checkpoints.
	driving
)

// sessionOpening says what openCommand opens for a command. The zero value
// is a read-only command's: the configuration (its warnings not printed),
// the database read-only and the session's id.
type sessionOpening struct {
	access storeAccess
	// model: the command calls the model, so the configuration's
	// warnings are printed and missing credentials are an error
	// (loadDriving).
	model bool
	// warn prints the configuration's warnings of a command that
	// does not call the model.
	warn bool
	// runner opens the session's runner (openSession): it asks nothing
	// and grants nothing. Not with readOnly.
	runner bool
}

// sessionCmd is what openCommand opened. Close closes the runner, if
// any, then the store.
type sessionCmd struct {
	a  *app
	st *storage.Store
	id string       // the session's full id
	r  *loop.Runner // nil unless sessionOpening.runner
}

// openCommand loads the app, opens the database and resolves the session
// f names (the latest of this directory by default; none is an error),
// as how says. On an error everything opened is closed again.
func openCommand(ctx context.Context, g *globalFlags, f *sessionFlags, how sessionOpening) (*sessionCmd, error) {
	load := loadApp
	if how.model {
		load = loadDriving
	}
	a, err := load(g)
	if err != nil {
		return nil, err
	}
	if how.warn && !how.model {
		a.warn()
	}
	var st *storage.Store
	switch how.access {
	case readOnly:
		st, err = a.openReadOnly(ctx)
	case writing:
		st, err = a.openStore(ctx)
	case driving:
		st, err = a.openDriving(ctx)
	}
	if err != nil {
		return nil, err
	}
	c := &sessionCmd{a: a, st: st}
	if how.runner {
		c.r, c.id, err = a.openSession(ctx, st, f)
	} else {
		c.id, err = a.resolveSession(ctx, st, f.session, f.cont, true)
	}
	if err != nil {
		st.Close()
		return nil, err
	}
	return c, nil
}

// Close closes the runner, if any, then the store.
func (c *sessionCmd) Close() {
	if c.r != nil {
		c.r.Close()
	}
	c.st.Close()
}

// openStore opens the database for writing.
func (a *app) openStore(ctx context.Context) (*storage.Store, error) {
	return storage.Open(ctx, a.cfg.DataDir)
}

// openDriving opens the database for a command that drives a session, and
// expires old saved tool outputs in the background (by age, then the
// oldest beyond the total bound) and keeps this directory's snapshot store
// bounded (pruneSnapshots). The store outlives
// ctx's cancellation, so that a cancelled turn can still be persisted.
func (a *app) openDriving(ctx context.Context) (*storage.Store, error) {
	st, err := a.openStore(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	background.run(func(bg context.Context) {
		_, _ = truncate.Clean(a.outputDir(), truncate.MaxAge)
		if maxTotal := a.cfg.Tools.OutputsMaxTotalBytes; maxTotal > 0 {
			_, _ = truncate.Bound(a.outputDir(), maxTotal)
		}
		_ = a.pruneSnapshots(bg, st)
	})
	return st, nil
}

// openSession drives the session f names (or the latest of this
// directory) for a command that runs no tool: it asks nothing and grants
// nothing. The caller closes the runner.
func (a *app) openSession(ctx context.Context, st *storage.Store, f *sessionFlags) (*loop.Runner, string, error) {
	id, err := a.resolveSession(ctx, st, f.session, f.cont, true)
	if err != nil {
		return nil, "", err
	}
	opt := a.loopOptions(st, tools.NewPermissions(permModes(a.cfg.Permissions), nil, false))
	opt.Hooks = opt.Hooks.Without(hooks.SessionStart) // maintenance, not a session starting
	r, err := loop.Open(ctx, opt, id)
	if err != nil {
		return nil, "", err
	}
	return r, id, nil
}

// openReadOnly opens the database for a read-only command.
func (a *app) openReadOnly(ctx context.Context) (*storage.Store, error) {
	return storage.OpenReadOnly(ctx, a.cfg.DataDir)
}

// resolveSession picks the session named by --session or -c; "" means a
// new one. required makes "no session" an error.
func (a *app) resolveSession(ctx context.Context, st *storage.Store, id string, cont, required bool) (string, error) {
	switch {
	case id != "" && cont:
		return "", usageError("--session and --continue are mutually exclusive")
	case id != "":
		s, err := lookupSession(ctx, st, id)
		if err != nil {
			return "", err
		}
		return s.ID, nil
	case cont || required:
		s, err := st.LatestSession(ctx, a.dir)
		if errors.Is(err, storage.ErrNotFound) {
			return "", fmt.Errorf("no session in %s yet: start one with `agent` or `agent run`", a.dir)
		}
		if err != nil {
			return "", err
		}
		return s.ID, nil
	}
	return "", nil
}

// lookupSession finds a session by id or unique prefix, with errors that
// say what to do.
func lookupSession(ctx context.Context, st *storage.Store, id string) (*message.Session, error) {
	s, err := st.GetSession(ctx, id)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return nil, fmt.Errorf("no session %s (`agent sessions --all` lists them; a prefix needs 6 characters or more)", id)
	case errors.Is(err, storage.ErrAmbiguousID):
		return nil, fmt.Errorf("%w: give more characters", err)
	case err != nil:
		return nil, err
	}
	return s, nil
}
