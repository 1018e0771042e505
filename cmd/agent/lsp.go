package main

// agent lsp list: the language servers of the config (config lsp), each
// with its command looked up, the extensions it serves and, for a server
// whose command is missing, why it will not start. A chat's running
// servers (state, restarts, last error) are shown by its /lsp.

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/lsp"
	"github.com/ctxloop/agent/internal/termsafe"
)

func newLSPCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: "List the configured language servers",
		Long: `Language servers are declared in the user config's "lsp" object, by
language: {"go": {"command": "gopls"}, "python": {"command":
"pyright-langserver", "args": ["--stdio"]}}, each with optional
"extensions". After each write or edit of a file they serve, the edit's
result gets the errors it introduced (see the README's Diagnostics).`,
		Example: "  agent lsp list\n  agent lsp list --json",
		Args:    cobra.NoArgs,
	}
	var asJSON bool
	list := &cobra.Command{
		Use:     "list",
		Short:   "Show each language server: command, where it is installed, extensions, state",
		Example: "  agent lsp list\n  agent lsp list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := loadApp(g)
			if err != nil {
				return err
			}
			a.warn()
			return listLSP(lsp.Configured(a.cfg.LSP), asJSON, os.Stdout)
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(list)
	return cmd
}

// listLSP prints the servers' statuses.
func listLSP(rows []lsp.Status, asJSON bool, out io.Writer) error {
	if asJSON {
		if rows == nil {
			rows = []lsp.Status{}
		}
		return printJSON(out, rows)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(out, `No language server is configured: add "lsp": {"go": {"command": "gopls"}} to your config.`)
		return err
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tCOMMAND\tEXTENSIONS\tSTATE\tNOTE")
	for _, r := range rows {
		note := r.Path
		if r.LastError != "" {
			note = r.LastError
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", termsafe.Strip(r.Name), termsafe.Strip(strings.Join(append([]string{r.Command}, r.Args...), " ")),
			strings.Join(r.Extensions, " "), r.State, termsafe.Strip(note))
	}
	return w.Flush()
}
