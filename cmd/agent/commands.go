package main

// Custom slash commands outside the chat: `agent commands [--json]` lists
// them, and `agent run /name args…` expands one into the prompt
// (internal/commands; the chat's own use is in internal/tui/custom.go).

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/commands"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/skills"
	"github.com/ctxloop/agent/internal/tui"
)

// commandCatalog is the catalog of custom commands for the app's
// directory; it reads nothing until used.
func (a *app) commandCatalog() *commands.Catalog {
	return commands.NewCatalog(commands.Roots{
		Dir:         a.dir,
		ProjectFile: a.cfg.ProjectFile,
		Home:        config.Home(os.Getenv),
		UserDir:     config.UserCommandsDir(os.Getenv),
		Skills:      skills.Commands(a.skillCatalog(a.dir)), // a user invokes a skill as /name (skills.go)
	}, tui.CommandNames())
}

// commandRow is one entry of `agent commands --json`.
type commandRow struct {
	Name         string `json:"name"`
	Source       string `json:"source"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argument_hint,omitempty"`
	Path         string `json:"path"`
	// Overrides is the file of the command of the same name this one
	// hides.
	Overrides string `json:"overrides,omitempty"`
	// OverridesSource is that command's source ("project").
	OverridesSource string `json:"overrides_source,omitempty"`
}

func newCommandsCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "commands",
		Short: "List the custom slash commands",
		Long: `commands lists the custom slash commands of this directory: Markdown files
in .agent/commands/ of the project (the nearest directory up that has one,
and the one beside the project's .agent/config.json) and in
$XDG_CONFIG_HOME/agent/commands/ (~/.config/agent/commands/). A file's
path names it: review.md is /review, git/commit.md is /git:commit. Your
own command wins over a project's of the same name, which is listed as
shadowed; a built-in chat command's name cannot be taken. Files that are skipped (too large, not
text, a clash) are reported on stderr.

In the chat, /name args sends the file's text as your message, $ARGUMENTS
replaced by the arguments and $1…$9 by each one ("quoted words" are one);
agent run /name args… does the same headless.`,
		Example: `  agent commands
  agent commands --json | jq -r '.[].name'
  agent run /review main.go`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := loadApp(g)
			if err != nil {
				return err
			}
			return listCommands(a.commandCatalog(), asJSON, os.Stdout, os.Stderr)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func listCommands(cat *commands.Catalog, asJSON bool, out, errOut io.Writer) error {
	set := cat.Load()
	warnNotices(errOut, set.Notices)
	rows := make([]commandRow, 0, len(set.Commands))
	for _, c := range set.Commands {
		rows = append(rows, commandRow{Name: c.Name, Source: c.Source, Description: c.Description,
			ArgumentHint: c.ArgumentHint, Path: c.Path, Overrides: c.Overrides, OverridesSource: c.OverridesSource})
	}
	if asJSON {
		// The usable commands only, one per name: a shadowed one is the
		// winner's overrides.
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(out, "No custom commands: Markdown files in .agent/commands/ (project) or ~/.config/agent/commands/ (user) become /name.")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COMMAND\tSOURCE\tDESCRIPTION\tPATH")
	row := func(c commands.Command, source string) {
		name := "/" + c.Name
		if c.ArgumentHint != "" {
			name += " " + c.ArgumentHint
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, source, c.Description, safePath(c.Path))
	}
	// Each command, then the ones of the same name it hides.
	for _, c := range set.Commands {
		source := c.Source
		if c.Overrides != "" {
			source += " (overrides " + c.OverridesSource + ")"
		}
		row(c, source)
		for _, sh := range set.Shadowed {
			if sh.Name == c.Name {
				row(sh, sh.Source+" (shadowed)")
			}
		}
	}
	return tw.Flush()
}

// warnNotices prints the catalog's notices as warnings.
func warnNotices(w io.Writer, notices []string) {
	for _, n := range notices {
		fmt.Fprintln(w, "agent: warning:", n)
	}
}

// safePath is a path for a table: the catalog's paths are file names
// from the disk, which may hold control characters.
func safePath(p string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return '?'
		}
		return r
	}, p)
}

// expandCommand turns a prompt that starts with "/name" into the custom
// command's text. args are run's arguments, when the prompt came from
// them: a shell's quoting then says what each positional argument is.
// A prompt that does not start with a command name is returned as it is;
// a name no command has is bad usage.
func expandCommand(a *app, prompt string, args []string) (string, error) {
	name, raw, ok := commands.Invocation(prompt)
	if !ok {
		return prompt, nil
	}
	cmd, set, found := a.commandCatalog().Lookup(name)
	warnNotices(os.Stderr, set.Notices)
	if !found {
		return "", usageError("unknown command /%s: agent commands lists the custom commands (start the prompt with a space to send it as text)", name)
	}
	argv := commands.SplitArgs(raw)
	if len(args) > 1 && !strings.ContainsAny(args[0], " \t\n") {
		argv = args[1:] // the shell already split them
	}
	return commands.Expand(cmd.Body, raw, argv), nil
}
