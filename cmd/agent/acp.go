package main

// `agent acp`: the Agent Client Protocol on stdin/stdout (internal/acp),
// for editors. This file is its Backend: each session gets the
// configuration of its own directory (its project file, hooks, sandbox),
// the user's MCP servers with the client's merged in under the client's
// names, and the one database and provider of the command. Standard
// output carries only protocol messages: everything else the process
// might print goes to stderr.

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/acp"
	"github.com/ctxloop/agent/internal/attachments"
	"github.com/ctxloop/agent/internal/commands"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

func newACPCmd(g *globalFlags) *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Serve the Agent Client Protocol on stdin/stdout, for editors",
		Long: fmt.Sprintf(`acp speaks the Agent Client Protocol (version %d, JSON-RPC over stdio) so that
an editor (Zed, JetBrains, Neovim, Emacs) drives the agent: sessions are
created and loaded, prompts stream their answers, tool calls and diffs,
and permissions are asked in the editor. Standard output carries protocol
messages only; warnings and logs go to stderr. The API key comes from the
environment or the config, as for agent run.`, acp.ProtocolVersion),
		Example: `  # Zed settings.json
  "agent_servers": {"agent": {"command": "agent", "args": ["acp"]}}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runACP(cmd.Context(), g, verbose)
		},
	}
	cmd.Flags().BoolVar(&verbose, "verbose", false, "log the protocol's diagnostics to stderr")
	return cmd
}

func runACP(ctx context.Context, g *globalFlags, verbose bool) error {
	protocol := os.Stdout
	os.Stdout = os.Stderr // a stray print must not corrupt the protocol
	a, err := loadDriving(g)
	if err != nil {
		return err
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	st, err := a.openDriving(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	return acp.Serve(ctx, os.Stdin, protocol, &acpBackend{g: g, base: a, st: st}, log)
}

// acpBackend opens sessions for internal/acp.
type acpBackend struct {
	g    *globalFlags
	base *app // the command's own: its directory is where the editor started it
	st   *storage.Store
}

// appIn is the app of a session's directory: its configuration, hooks,
// sandbox and the MCP servers given.
func (b *acpBackend) appIn(dir string, servers map[string]config.MCPServer) (*app, error) {
	a := b.base
	if dir != b.base.dir {
		cfg, err := config.Load(config.Flags{Model: b.g.model, BaseURL: b.g.baseURL, DataDir: b.g.dataDir, ConfigFile: b.g.configFile}, dir, os.Getenv)
		if err != nil {
			return nil, err
		}
		a = &app{cfg: cfg, dir: dir, hooks: loadHooks(cfg)}
		a.modelFrom = rememberedModel(cfg, dir)
		a.warn()
		if err := cfg.CheckCredentials(); err != nil {
			return nil, err
		}
	} else {
		cp := *b.base.cfg
		a = &app{cfg: &cp, dir: dir, hooks: b.base.hooks, modelFrom: b.base.modelFrom}
	}
	if len(servers) > 0 {
		merged := maps.Clone(a.cfg.MCP)
		if merged == nil {
			merged = map[string]config.MCPServer{}
		}
		maps.Copy(merged, servers) // the client's name wins
		a.cfg.MCP = merged
	}
	if w, err := a.setupSandbox(""); err != nil {
		return nil, err
	} else if w != "" {
		fmt.Fprintln(os.Stderr, "agent: warning:", w)
	}
	return a, nil
}

func (b *acpBackend) Open(ctx context.Context, spec acp.OpenSpec) (*acp.Opened, error) {
	a, err := b.appIn(spec.Dir, spec.MCP)
	if err != nil {
		return nil, err
	}
	id := spec.ID
	if id != "" {
		s, err := lookupSession(ctx, b.st, id)
		if err != nil {
			return nil, err
		}
		id = s.ID
	} else if err := a.chooseModel(ctx); err != nil {
		return nil, err
	}
	// Once the session and the configuration are known good, git and the
	// AGENTS.md files are read while the runner opens; the first turn
	// waits for them.
	env := loop.GatherEnvironment(context.WithoutCancel(ctx), spec.Dir)
	a.startMCP(context.WithoutCancel(ctx))
	opt := a.loopOptions(b.st, tools.NewPermissions(permModes(a.cfg.Permissions), spec.Asker, false))
	opt.Observer, opt.Editor, opt.Environment = spec.Observer, spec.Editor, env
	r, err := loop.Open(context.WithoutCancel(ctx), opt, id)
	if err != nil {
		a.closeMCP()
		return nil, err
	}
	o := &acp.Opened{Runner: r, Mode: opt.Mode, Close: func() {
		r.Close()
		a.closeMCP()
	}}
	if a.mcp != nil {
		o.Ready = func(ctx context.Context) { _ = a.mcp.Wait(ctx) }
	}
	return o, nil
}

func (b *acpBackend) Commands(dir string) []acp.Command {
	set := (&app{cfg: b.base.cfg, dir: dir}).commandCatalog().Load()
	out := make([]acp.Command, 0, len(set.Commands))
	for _, c := range set.Commands {
		out = append(out, acp.Command{Name: c.Name, Description: c.Description, Hint: c.ArgumentHint})
	}
	return out
}

func (b *acpBackend) Expand(dir, text string) (string, bool, error) {
	name, raw, ok := commands.Invocation(text)
	if !ok {
		return text, false, nil
	}
	cmd, _, found := (&app{cfg: b.base.cfg, dir: dir}).commandCatalog().Lookup(name)
	if !found {
		return text, false, nil
	}
	return commands.Expand(cmd.Body, raw, commands.SplitArgs(raw)), true, nil
}

// Version is the agent's version (version.go).
func (b *acpBackend) Version() string { return version }

func (b *acpBackend) Sessions(ctx context.Context, dir string) ([]message.Session, error) {
	return b.st.ListSessions(ctx, dir)
}

// SaveImage stores the image; Add checks it (attachments.Check) first.
func (b *acpBackend) SaveImage(name string, data []byte) (*message.FileState, error) {
	return attachments.ForDataDir(b.base.cfg.DataDir).Add(name, data)
}
