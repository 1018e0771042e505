// Package lsp runs the language servers of the user's config (config lsp)
// so that each write or edit tells the model the diagnostics it
// introduced, and offers the diagnostics tool.
//
// The contract: with no server configured New returns nil and nothing
// starts, no goroutine, no process. A server starts on the first write or
// edit of a file of its extensions under the session's directory (its
// root), stays for the session, is started again when it dies (at most
// maxRestarts times) and is shut down by Close. An edit (Servers.BeforeEdit,
// the tools.EditObserver the write and edit tools call) takes the file's
// diagnostics before the change (the last publish for the text on disk,
// or asked for), then after it (the publish for the new version) and
// returns those the edit introduced (Introduced), capped. Both waits
// together are bounded by the configured wait: an edit never waits
// longer, never fails, and a server that is missing, crashes, hangs or
// floods leaves the edit as it was, with one note per server per session
// saying diagnostics were unavailable and why. A server runs in a process
// group of its own that dies with the agent (childproc); when it ends or
// is shut down, the whole group is killed: nothing it started outlives it.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/childproc"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/safefile"
	"github.com/ctxloop/agent/internal/secrets"
	"github.com/ctxloop/agent/internal/tools"
)

const (
	maxRestarts = 3 // starts after the first, per server and session
	// maxTimeouts is how many edits in a row a running server may leave
	// without diagnostics before it is taken as hung and stopped.
	maxTimeouts  = 3
	startTimeout = 30 * time.Second // initialize, in the background
	maxFileBytes = 4 << 20          // a larger file is not sent
)

// Servers are the session's language servers. A nil *Servers is valid
// and does nothing.
type Servers struct {
	cfg  config.LSP
	wait time.Duration

	ctx    context.Context // cancelled by Close: ends starts under way
	cancel context.CancelFunc
	starts sync.WaitGroup

	mu    sync.Mutex
	slots map[string]*server // by name and root

	// children records the servers' process groups, so that the next
	// agent stops what a killed one left (childproc); nil records none.
	children *childproc.Registry
}

// WithChildren makes s record its servers' process groups in r, and
// returns s (nil stays nil). Call it before s is used.
func (s *Servers) WithChildren(r *childproc.Registry) *Servers {
	if s != nil {
		s.children = r
	}
	return s
}

// New returns the servers cfg configures, or nil when there is none or
// they are off.
func New(cfg config.LSP) *Servers {
	if !cfg.Active() {
		return nil
	}
	cfg = cfg.WithDefaults()
	s := &Servers{cfg: cfg, wait: time.Duration(cfg.WaitMS) * time.Millisecond, slots: map[string]*server{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s
}

// server is one configured server for one root.
type server struct {
	name, root string
	cfg        config.LSPServer
	env        []string

	mu       sync.Mutex
	c        *client
	starting chan struct{} // closed when a start under way ends
	failed   error         // set: not started again
	lastErr  error
	restarts int
	timeouts int
	noted    bool
}

// serverFor is the server of path's extension for the root dir, made on
// first use; nil when none serves it or path is outside dir.
func (s *Servers) serverFor(dir, path string, secretValues []string) *server {
	if s == nil || !safefile.Within(dir, path) {
		return nil
	}
	ext := strings.ToLower(filepath.Ext(path))
	for _, name := range s.cfg.Names() {
		if !slices.Contains(s.cfg.ExtensionsOf(name), ext) {
			continue
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.slots == nil {
			s.slots = map[string]*server{}
		}
		key := name + "\x00" + dir
		sv := s.slots[key]
		if sv == nil {
			sv = &server{name: name, root: dir, cfg: s.cfg.Servers[name], env: secrets.Environ(nil, nil, secretValues...)}
			s.slots[key] = sv
		}
		return sv
	}
	return nil
}

// client returns the running client, starting it when needed, waiting at
// most until ctx is done.
func (s *Servers) client(ctx context.Context, sv *server) (*client, error) {
	for {
		sv.mu.Lock()
		if sv.c != nil {
			if err := sv.c.Err(); err != nil {
				sv.lastErr = err
				old := sv.c
				sv.c = nil
				sv.restarts++
				s.starts.Add(1)
				go func() { defer s.starts.Done(); <-old.stopped }()
				if sv.restarts > maxRestarts {
					sv.failed = fmt.Errorf("%w (it was restarted %d times)", err, maxRestarts)
				}
			}
		}
		if sv.failed != nil {
			err := sv.failed
			sv.mu.Unlock()
			return nil, err
		}
		if sv.c != nil {
			c := sv.c
			sv.mu.Unlock()
			return c, nil
		}
		if sv.starting == nil {
			life := s.life()
			if life.Err() != nil {
				sv.mu.Unlock()
				return nil, errors.New("the session is closing")
			}
			sv.starting = make(chan struct{})
			s.starts.Add(1)
			go s.start(life, sv, sv.starting)
		}
		starting := sv.starting
		sv.mu.Unlock()
		select {
		case <-starting:
		case <-ctx.Done():
			return nil, fmt.Errorf("%s did not start within %v", sv.name, s.wait)
		}
		sv.mu.Lock()
		c, err := sv.c, sv.lastErr
		sv.mu.Unlock()
		if c == nil {
			return nil, err // this start failed: the next edit tries again
		}
	}
}

// start starts sv's process and initializes it, in the background.
func (s *Servers) start(life context.Context, sv *server, done chan struct{}) {
	defer s.starts.Done()
	c, err := startClient(s.children, sv.name, sv.cfg.Command, sv.cfg.Args, sv.root, sv.env)
	if err == nil {
		ctx, cancel := context.WithTimeout(life, startTimeout)
		err = c.initialize(ctx, sv.root)
		cancel()
		if err != nil {
			sctx, scancel := context.WithTimeout(context.Background(), time.Second)
			c.shutdown(sctx)
			scancel()
			c = nil
		}
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.starting = nil
	close(done)
	switch {
	case errors.Is(err, exec.ErrNotFound):
		sv.failed = fmt.Errorf("%s is not installed (%q not found)", sv.name, sv.cfg.Command)
		sv.lastErr = sv.failed
	case err != nil:
		sv.lastErr = fmt.Errorf("start %s: %w", sv.name, err)
		sv.restarts++
		if sv.restarts > maxRestarts {
			sv.failed = sv.lastErr
		}
	default:
		sv.c = c
	}
	if sv.c == nil && sv.failed == nil && life.Err() != nil {
		sv.failed = errors.New("the session is closing")
	}
}

// unavailable is the note for err, the first time for sv; "" after.
func (sv *server) unavailable(err error) string {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if err != nil && sv.lastErr == nil {
		sv.lastErr = err
	}
	if sv.noted {
		return ""
	}
	sv.noted = true
	return fmt.Sprintf("\n\n(diagnostics unavailable: %v)", err)
}

// timedOut counts an edit the server left without diagnostics, and stops
// a server that does so maxTimeouts times in a row.
func (sv *server) timedOut(c *client, wait time.Duration) error {
	err := fmt.Errorf("%s gave no diagnostics within %v", sv.name, wait)
	sv.mu.Lock()
	sv.timeouts++
	hung := sv.timeouts >= maxTimeouts
	if hung {
		sv.failed = fmt.Errorf("%s gave no diagnostics within %v %d times in a row: stopped", sv.name, wait, maxTimeouts)
		sv.lastErr = sv.failed
	}
	sv.mu.Unlock()
	if hung {
		c.die(sv.failed)
	}
	return err
}

func (sv *server) answered() {
	sv.mu.Lock()
	sv.timeouts = 0
	sv.mu.Unlock()
}

// diagnose makes the server's copy of path hold text and returns its
// diagnostics for it: the last publish when that was for this text.
func (s *Servers) diagnose(ctx context.Context, sv *server, c *client, path, text string) ([]Diagnostic, error) {
	if diags, sent, ok := c.current(path); ok && sent == text {
		return diags, nil
	}
	seq, version, err := c.sync(ctx, path, sv.name, text)
	if err != nil {
		return nil, err
	}
	diags, err := c.await(ctx, path, seq, version)
	if err != nil {
		if ctx.Err() != nil && c.Err() == nil {
			return nil, sv.timedOut(c, s.wait)
		}
		return nil, err
	}
	sv.answered()
	return diags, nil
}

// readText is the file's text; ok false when it does not exist.
func readText(ctx context.Context, path, dir string) (string, bool, error) {
	b, err := safefile.Read(ctx, path, dir, maxFileBytes)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}

// BeforeEdit is told that write or edit is about to change path (absolute)
// in env's session, and returns what to call once the change is done:
// its note for the result (the introduced diagnostics, or why they are
// unavailable, once), "" for nothing. nil when no server serves path.
func (s *Servers) BeforeEdit(ctx context.Context, env *tools.Env, path string) func(context.Context) string {
	sv := s.serverFor(env.Dir, path, env.Secrets)
	if sv == nil {
		return nil
	}
	dctx, cancel := context.WithTimeout(ctx, s.wait)
	oldText, existed, err := readText(dctx, path, env.Dir)
	var c *client
	if err == nil {
		c, err = s.client(dctx, sv)
	}
	var before []Diagnostic
	if err == nil && existed {
		before, err = s.diagnose(dctx, sv, c, path, oldText)
	}
	return func(ctx context.Context) string {
		defer cancel()
		if err != nil {
			return sv.unavailable(err)
		}
		newText, _, rerr := readText(ctx, path, env.Dir)
		if rerr != nil {
			return "" // not a file the server can read (too large): nothing to say
		}
		if dctx.Err() != nil && ctx.Err() == nil {
			// The wait went before the change was done (a cold server's
			// start, a slow tool): say so rather than nothing, which reads
			// as "no error introduced" (TestWaitSpentBeforeTheEditIsNoted).
			return sv.unavailable(fmt.Errorf("the %v wait was spent before the edit was done (the server may still be starting): nothing was checked", s.wait))
		}
		after, err := s.diagnose(dctx, sv, c, path, newText)
		if err != nil {
			return sv.unavailable(err)
		}
		intro := Introduced(before, after, oldText, newText, s.cfg.Warnings)
		if len(intro) == 0 {
			return ""
		}
		return fmt.Sprintf("\n\nDiagnostics introduced by this edit (%s):\n%s", sv.name, Format(shown(env.Dir, path), intro, s.cfg.MaxDiagnostics, s.cfg.MaxBytes))
	}
}

// shown is path relative to dir when inside it.
func shown(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

// Close shuts every server down and waits for them; the servers may be
// used again after (they start again on the next edit).
func (s *Servers) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.cancel()
	slots := s.slots
	s.slots = map[string]*server{}
	s.mu.Unlock()
	s.starts.Wait()
	var wg sync.WaitGroup
	for _, sv := range slots {
		sv.mu.Lock()
		c := sv.c
		sv.c = nil
		sv.mu.Unlock()
		if c != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				c.shutdown(ctx)
			}()
		}
	}
	wg.Wait()
	s.mu.Lock()
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.mu.Unlock()
}

// life is the context the servers' starts run under until Close.
func (s *Servers) life() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ctx
}
