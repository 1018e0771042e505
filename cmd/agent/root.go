package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/childproc"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/hooks"
	"github.com/ctxloop/agent/internal/jobs"
	"github.com/ctxloop/agent/internal/lastmodel"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/lsp"
	"github.com/ctxloop/agent/internal/mcp"
	"github.com/ctxloop/agent/internal/plan"
	"github.com/ctxloop/agent/internal/provider"
	"github.com/ctxloop/agent/internal/sandbox"
	"github.com/ctxloop/agent/internal/skills"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/task"
	"github.com/ctxloop/agent/internal/tools"
)

// globalFlags are the flags every command takes.
type globalFlags struct {
	model, baseURL, dataDir, configFile string
	session                             string
	cont                                bool
	inline                              bool
}

func newRootCmd() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:   "agent",
		Short: "A terminal coding agent whose conversations never run out of context",
		Long: `agent chats with you about the code in the current directory, and reads,
searches, edits and runs it through tools. Long conversations stay usable:
tool output is truncated at the source, old outputs are pruned and the
history is summarised when the context window fills.`,
		Example: `  agent                      # open the chat in this directory
  agent -c                   # continue the latest session here
  agent run "explain main.go"`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTUI(cmd.Context(), g)
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{code: exitUsage, err: err}
	})
	pf := root.PersistentFlags()
	pf.StringVar(&g.model, "model", "", "model name (env AGENT_MODEL)")
	pf.StringVar(&g.baseURL, "base-url", "", "OpenAI-compatible API base URL (env OPENAI_BASE_URL)")
	pf.StringVar(&g.dataDir, "data-dir", "", "data directory holding agent.db (env AGENT_DATA_DIR)")
	pf.StringVar(&g.configFile, "config", "", "user config file (env AGENT_CONFIG)")
	root.Flags().StringVar(&g.session, "session", "", "open this session")
	root.Flags().BoolVarP(&g.cont, "continue", "c", false, "continue the latest session of this directory")
	root.Flags().BoolVar(&g.inline, "inline", false, "keep the terminal's screen: finished messages go to its scrollback (config ui.mode)")

	root.AddCommand(newRunCmd(g), newSessionsCmd(g), newContextCmd(g), newCompactCmd(g), newInspectCmd(g),
		newModelsCmd(g), newRewindCmd(g), newDiffCmd(g), newCompletionCmd(), newPinsCmd(g), newMemoryCmd(g), newCommandsCmd(g),
		newMCPCmd(g), newHooksCmd(g), newSteerCmd(g), newLSPCmd(g), newSkillsCmd(g), newACPCmd(g))
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		// Flags, not LocalFlags: that one copies every flag into a new set
		// on each call, at every start. No command declares a persistent
		// --session.
		if c.Flags().Lookup("session") != nil {
			completeSessionFlag(c, g)
		}
	}
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			c.Example = `  agent help run
  agent help sessions rm`
		}
	}
	return root
}

// isUsage tells cobra's own usage errors (unknown command or flag, wrong
// argument count) from failures.
func isUsage(err error) bool {
	msg := err.Error()
	for _, s := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires ", "invalid argument", "flag needs"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// app is what a command needs, resolved from flags, environment and files.
type app struct {
	cfg *config.Config
	dir string
	// mcp are the MCP servers of a command that drives a session
	// (startMCP); nil when none is configured or the command runs none.
	mcp   *mcp.Servers
	hooks *hooks.Runner // nil when no hook runs (hooks.go)
	// sandbox is the OS sandbox of the sessions driven (sandbox.go); nil
	// until setupSandbox, which commands running tools call.
	sandbox *sandbox.Setting
	// prov is the command's one provider (provider): the requests of a
	// command share its connections.
	provOnce sync.Once
	prov     provider.Provider
	// modelFrom says where cfg.Model came from when the memory gave it
	// (lastmodel.Project or Global); None otherwise.
	modelFrom lastmodel.Scope
	// skills is the catalog of the skills of dir, made with the app and
	// shared by the loop, the chat's notice, /name commands and the
	// counted tools (skills.go): each SKILL.md is read once, then only
	// checked by its stat.
	skills *skills.Catalog
}

func loadApp(g *globalFlags) (*app, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	if abs, err := filepath.EvalSymlinks(dir); err == nil {
		dir = abs
	}
	cfg, err := config.Load(config.Flags{
		Model: g.model, BaseURL: g.baseURL, DataDir: g.dataDir, ConfigFile: g.configFile,
	}, dir, os.Getenv)
	if err != nil {
		return nil, err
	}
	// Before this agent starts any: stop the hooks' and MCP servers'
	// leftovers of an agent that was killed.
	for _, err := range children(cfg).Reap() {
		cfg.Warnings = append(cfg.Warnings, err.Error())
	}
	a := &app{cfg: cfg, dir: dir, hooks: loadHooks(cfg)}
	a.skills = newSkillCatalog(cfg, dir) // reads nothing until used
	a.modelFrom = rememberedModel(cfg, dir)
	return a, nil
}

// children is the registry of the hooks' and MCP servers' process groups
// (package childproc), kept in the data directory.
func children(cfg *config.Config) *childproc.Registry {
	return childproc.Open(filepath.Join(cfg.DataDir, "children"))
}

func (a *app) warn() {
	for _, w := range a.cfg.Warnings {
		fmt.Fprintln(os.Stderr, "agent: warning:", w)
	}
}

func (a *app) provider() provider.Provider {
	a.provOnce.Do(func() {
		a.prov = provider.NewOpenAI(provider.Config{BaseURL: a.cfg.BaseURL, APIKey: a.cfg.APIKey, StreamIdleTimeout: a.cfg.StreamIdleTimeout})
	})
	return a.prov
}

func (a *app) outputDir() string { return filepath.Join(a.cfg.DataDir, "outputs") }

// loadDriving resolves the configuration of a command that calls the
// model: warnings go to stderr and missing credentials are an error.
func loadDriving(g *globalFlags) (*app, error) {
	a, err := loadApp(g)
	if err != nil {
		return nil, err
	}
	a.warn()
	if err := a.cfg.CheckCredentials(); err != nil {
		return nil, err
	}
	return a, nil
}

// interruptible returns ctx cancelled by SIGINT, SIGTERM or SIGHUP, so that
// a command driving a session cancels its turn cleanly (the tools' process
// groups killed, everything persisted, the lease released) instead of
// dying with a tool still running outside the terminal's process group.
func interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}

// loopOptions is the runner template of every command that drives a
// session; callers add what is theirs (observer, step limit).
func (a *app) loopOptions(st *storage.Store, perms *tools.Permissions) loop.Options {
	opt := loop.Options{
		Store: st, Provider: a.provider(), Tools: baseTools(a.cfg), Perms: perms,
		Config: a.cfg, Dir: a.dir, OutputDir: a.outputDir(), MaxCostUSD: a.cfg.Budget, Hooks: a.hooks,
		SessionTools: task.SessionTools(a.cfg.Task), Children: children(a.cfg), Sandbox: a.sandbox,
		Mode:         plan.New(a.cfg.Mode == config.ModePlan, a.cfg.MCP),
		Jobs:         jobs.New(a.cfg.Tools.BashMaxBackground),
		TodoReminder: a.cfg.Tools.TodoReminderOn(false),                // the chat's default; agent run's is on
		LSP:          lsp.New(a.cfg.LSP).WithChildren(children(a.cfg)), // nil with no server configured
		Skills:       loop.NewSkills(a.skillCatalog(a.dir)),
	}
	if a.mcp != nil {
		opt.Extra = a.mcp
	}
	return opt
}

// offeredTools are the tools a session offers besides recall (the
// built-in ones and the task tool), for the commands that count a
// session's context without driving it: their figure is the chat's.
func (a *app) offeredTools() *tools.Registry {
	reg := baseTools(a.cfg).With(task.New(a.cfg.Task), skills.Tool(a.skillCatalog(a.dir)))
	if d := lsp.ToolSchema(a.cfg.LSP); d != nil {
		reg = reg.With(d)
	}
	return reg
}

// permModes is the config's permissions as the tools' modes.
func permModes(m map[string]string) map[string]tools.Mode {
	out := make(map[string]tools.Mode, len(m))
	for k, v := range m {
		out[k] = tools.Mode(v)
	}
	return out
}
