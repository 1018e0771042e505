package main

// `agent hooks list` shows the configured hooks, where each comes from and
// whether it runs; `agent hooks approve` lets a project file's hooks run.
// The runner every driving command uses is built once, in loadApp, from
// the user file's hooks and the project's approved ones.

import (
	"encoding/json"
	"fmt"
	"github.com/ctxloop/agent/internal/sandbox"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/hooks"
	"github.com/ctxloop/agent/internal/termsafe"
)

// loadHooks builds the hooks runner of cfg (nil when none runs) and adds
// the plan's warnings (unapproved project hooks, unusable entries) to the
// configuration's.
func loadHooks(cfg *config.Config) *hooks.Runner {
	if len(cfg.Hooks) == 0 && len(cfg.ProjectHooks) == 0 {
		return nil
	}
	plan := hooks.FromConfig(cfg, approval.Open(cfg.DataDir))
	r, warnings := hooks.New(plan.Run, hooks.Options{Secrets: secretsOf(cfg), Children: children(cfg),
		Sandbox: sandbox.Policy{Network: cfg.Sandbox.Network, Hosts: cfg.Sandbox.Hosts, Writable: cfg.Sandbox.Writable, ReadOnly: []string{cfg.DataDir}}}) // for hooks that opt in
	cfg.Warnings = append(cfg.Warnings, plan.Warnings...)
	cfg.Warnings = append(cfg.Warnings, warnings...)
	return r
}

func secretsOf(cfg *config.Config) []string {
	if cfg.APIKey == "" {
		return nil
	}
	return []string{cfg.APIKey}
}

func newHooksCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "List the configured hooks, or approve a project's",
		Long: `Hooks are commands the agent runs at points of a session (SessionStart,
UserPromptSubmit, PreToolUse, PostToolUse, PreCompact, PostCompact, Stop),
configured under "hooks" with Claude Code's shape. The user config's hooks
run; a project file's (.agent/config.json) run only once approved with
` + "`agent hooks approve`" + `, and again after any change to them.`,
		Example: `  agent hooks list
  agent hooks approve`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newHooksListCmd(g), newHooksApproveCmd(g))
	return cmd
}

func newHooksListCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the configured hooks, their source and whether they run",
		Example: `  agent hooks list
  agent hooks list --json | jq '.hooks[] | select(.approved | not)'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := loadApp(g)
			if err != nil {
				return err
			}
			return listHooks(cmd.OutOrStdout(), a.cfg, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func listHooks(out io.Writer, cfg *config.Config, asJSON bool) error {
	plan := hooks.FromConfig(cfg, approval.Open(cfg.DataDir))
	for i := range plan.Listed {
		plan.Listed[i].RepositoryFiles = hooks.RepositoryFiles(plan.Listed[i].Command, cfg.Dir)
	}
	if asJSON {
		listed := plan.Listed
		if listed == nil {
			listed = []hooks.Listed{}
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{"user_file": cfg.UserFile, "project_file": cfg.ProjectFile, "hooks": listed})
	}
	if len(plan.Listed) == 0 {
		fmt.Fprintln(out, `no hooks configured (add "hooks" to your user config; see README "Hooks")`)
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EVENT\tMATCHER\tSOURCE\tSTATUS\tCOMMAND")
	for _, l := range plan.Listed {
		matcher := l.Matcher
		if matcher == "" {
			matcher = "*"
		}
		status := "runs"
		switch {
		case !l.Known:
			status = "unknown event"
		case l.Type != "command":
			status = "unsupported type " + l.Type
		case !l.Approved:
			status = "not approved"
		}
		command := hookLine(l.Command)
		if l.TimeoutS > 0 {
			command += fmt.Sprintf("  (timeout %gs)", l.TimeoutS)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", l.Event, hookLine(matcher), l.Source, status, command)
	}
	tw.Flush()
	for _, l := range plan.Listed {
		if tool := hooks.RunsBuild(l.Command); tool != "" {
			fmt.Fprintf(out, "note: the %s hook %q runs the repository's build (%s): the files it reads are ordinary files the model may write, so with bash denied this hook still runs code the model wrote\n",
				l.Event, oneLine(hookLine(l.Command), 60), tool)
		}
		if len(l.RepositoryFiles) == 0 {
			continue
		}
		shown := make([]string, len(l.RepositoryFiles))
		for i, f := range l.RepositoryFiles {
			if rel, err := filepath.Rel(cfg.Dir, f); err == nil {
				f = rel
			}
			shown[i] = hookLine(f)
		}
		fmt.Fprintf(out, "note: the %s hook %q runs a repository file (%s): a write to it is code execution, so the agent's write and edit of it always ask\n",
			l.Event, oneLine(hookLine(l.Command), 60), strings.Join(shown, ", "))
	}
	for _, w := range plan.Warnings {
		fmt.Fprintln(out, "warning:", termsafe.Strip(w))
	}
	return nil
}

func hookLine(s string) string {
	return strings.Join(strings.Fields(termsafe.Strip(s)), " ")
}

func newHooksApproveCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "approve [EVENT...]",
		Short: "Let the project file's hooks run (all its events, or those named)",
		Long: `approve records that you allow the hooks the project file
(.agent/config.json) declares for the named events (all of its events
when none is named) to run, exactly as they are now: a change to an
event's hooks needs approving again. Read them first with ` + "`agent hooks list`" + `.`,
		Example: `  agent hooks list
  agent hooks approve Stop PostToolUse`,
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := loadApp(g)
			if err != nil {
				return err
			}
			return approveHooks(cmd.OutOrStdout(), a.cfg, args)
		},
	}
}

func approveHooks(out io.Writer, cfg *config.Config, events []string) error {
	if len(cfg.ProjectHooks) == 0 {
		fmt.Fprintln(out, "no project hooks to approve")
		return nil
	}
	declared := hooks.EventsOf(cfg.ProjectHooks)
	if len(events) == 0 {
		events = declared
	}
	for _, e := range events {
		if !slices.Contains(declared, e) {
			return usageError("hooks approve: %s declares no %q hooks; it declares %s", cfg.ProjectFile, e, strings.Join(declared, ", "))
		}
	}
	store := approval.Open(cfg.DataDir)
	for _, e := range events {
		groups := cfg.ProjectHooks[e]
		if err := store.Approve(cfg.ProjectFile, approval.KindHook, e, hooks.ProjectDigest(groups)); err != nil {
			return err
		}
		fmt.Fprintf(out, "approved the %s hooks of %s:\n", e, cfg.ProjectFile)
		for _, gr := range groups {
			for _, h := range gr.Hooks {
				if h.Command != "" {
					fmt.Fprintf(out, "  %s\n", hookLine(h.Command))
				}
			}
		}
	}
	return nil
}
