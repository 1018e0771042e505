package main

// Shell completion: `agent completion bash|zsh|fish` prints cobra's
// script, and the script asks the binary (cobra's hidden __complete
// command) for session ids when a --session flag or a sessions subcommand
// wants one. Completing reads the database read-only and never writes.

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/termsafe"
)

// maxCompletions bounds the session ids offered at once.
const maxCompletions = 200

func newCompletionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print the shell completion script for bash, zsh or fish",
		Long: `completion prints a script that makes your shell complete agent's commands,
flags and session ids (with their titles). Load it from your shell's start-up
file, or install it where your shell looks for completions.`,
		Example: `  source <(agent completion bash)                       # bash, this shell
  agent completion zsh > "${fpath[1]}/_agent"            # zsh, then restart it
  agent completion fish > ~/.config/fish/completions/agent.fish`,
		Args:      cobra.NoArgs,
		ValidArgs: []string{"bash", "zsh", "fish"},
	}
	shells := []struct {
		name, example string
		gen           func(root *cobra.Command) error
	}{
		{"bash", `  source <(agent completion bash)
  agent completion bash > ~/.local/share/bash-completion/completions/agent`,
			func(root *cobra.Command) error { return root.GenBashCompletionV2(os.Stdout, true) }},
		{"zsh", `  agent completion zsh > "${fpath[1]}/_agent"
  source <(agent completion zsh)`,
			func(root *cobra.Command) error { return root.GenZshCompletion(os.Stdout) }},
		{"fish", `  agent completion fish > ~/.config/fish/completions/agent.fish
  agent completion fish | source`,
			func(root *cobra.Command) error { return root.GenFishCompletion(os.Stdout, true) }},
	}
	for _, sh := range shells {
		cmd.AddCommand(&cobra.Command{
			Use:               sh.name,
			Short:             "Print the " + sh.name + " completion script",
			Example:           sh.example,
			Args:              cobra.NoArgs,
			ValidArgsFunction: cobra.NoFileCompletions,
			RunE: func(c *cobra.Command, _ []string) error {
				return sh.gen(c.Root())
			},
		})
	}
	return cmd
}

// completeSessionFlag registers session-id completion for cmd's --session
// flag.
func completeSessionFlag(cmd *cobra.Command, g *globalFlags) {
	_ = cmd.RegisterFlagCompletionFunc("session", func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return sessionCompletions(c.Context(), g, toComplete, nil)
	})
}

// completeSessionArgs completes session ids as arguments: one, or several
// when many is set (ids already given are not offered again).
func completeSessionArgs(g *globalFlags, many bool) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 && !many {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return sessionCompletions(c.Context(), g, toComplete, args)
	}
}

// sessionCompletions lists the ids starting with prefix, this directory's
// sessions first, newest first, each described by its title.
func sessionCompletions(ctx context.Context, g *globalFlags, prefix string, exclude []string) ([]cobra.Completion, cobra.ShellCompDirective) {
	const directive = cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	if ctx == nil {
		ctx = context.Background()
	}
	a, err := loadApp(g)
	if err != nil {
		return nil, directive
	}
	st, err := a.openReadOnly(ctx)
	if err != nil {
		if !errors.Is(err, storage.ErrNoDatabase) {
			cobra.CompDebugln("agent: "+err.Error(), true)
		}
		return nil, directive
	}
	defer st.Close()
	all, err := st.ListSessions(ctx, "")
	if err != nil {
		return nil, directive
	}
	skip := map[string]bool{}
	for _, id := range exclude {
		skip[strings.ToUpper(id)] = true
	}
	upper := strings.ToUpper(prefix)
	var here, elsewhere []cobra.Completion
	for _, s := range all {
		if !strings.HasPrefix(s.ID, upper) || skip[s.ID] {
			continue
		}
		c := cobra.CompletionWithDesc(s.ID, completionTitle(s))
		if s.Dir == a.dir {
			here = append(here, c)
		} else {
			elsewhere = append(elsewhere, c)
		}
	}
	out := append(here, elsewhere...)
	return out[:min(len(out), maxCompletions)], directive
}

// completionTitle describes a session in one short, safe line.
func completionTitle(s message.Session) string {
	title := s.Title
	if title == "" {
		title = "(untitled)"
	}
	return oneLine(termsafe.Strip(title), 50)
}
