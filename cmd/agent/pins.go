package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
)

func newPinsCmd(g *globalFlags) *cobra.Command {
	f := &sessionFlags{}
	cmd := &cobra.Command{
		Use:   "pins [--session ID | -c] [--json]",
		Short: "List the facts pinned to a session",
		Long: `pins lists the facts pinned to a session (/pin in the chat). Every request
carries them word for word after the summary; no compaction summarises them
away. Edit or remove them with /pins in the chat.`,
		Example: `  agent pins -c
  agent pins --session 01JX3K --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return listPins(cmd.Context(), g, f, cmd.OutOrStdout())
		},
	}
	addSessionFlags(cmd, f, true)
	return cmd
}

func listPins(ctx context.Context, g *globalFlags, f *sessionFlags, out io.Writer) error {
	c, err := openCommand(ctx, g, f, sessionOpening{access: readOnly})
	if err != nil {
		return err
	}
	defer c.Close()
	st, id := c.st, c.id
	pins, err := st.ListPins(ctx, id)
	if err != nil {
		return err
	}
	if f.json {
		if pins == nil {
			pins = []message.Pin{}
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(pins)
	}
	if len(pins) == 0 {
		fmt.Fprintf(out, "no pins in session %s (pin a fact with /pin TEXT in the chat)\n", id)
		return nil
	}
	for i, p := range pins {
		lines := strings.Split(termsafe.Strip(strings.TrimSpace(p.Text)), "\n")
		fmt.Fprintf(out, "%d. %s\n", i+1, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(out, "   %s\n", l)
		}
	}
	return nil
}
