package main

import (
	"context"
	"errors"
)

// runTUI opens the chat. The TUI is built in internal/tui.
func runTUI(ctx context.Context, g *globalFlags) error {
	return errors.New("the chat TUI is not built yet: use `agent run PROMPT` (see `agent run --help`)")
}
