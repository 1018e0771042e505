package main

// agent sessions rename ID TITLE: the user's title for a session, in place
// of the small model's. The title is the words after the id joined by
// spaces; an empty one, or one with terminal controls, is refused (exit 2)
// before the database is opened for writing.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/storage"
)

func newSessionsRenameCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "rename ID TITLE...",
		Short: "Give a session a title of your own",
		Long: `rename sets a session's title (what the session list and the chat's
/sessions picker show); the words after the id make the title.`,
		Example:           `  agent sessions rename 01JX3K fix the parser`,
		Args:              cobra.MinimumNArgs(2),
		ValidArgsFunction: completeSessionArgs(g, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			return renameSession(cmd.Context(), g, args[0], strings.Join(args[1:], " "), os.Stderr)
		},
	}
}

// checkTitle trims a title a user gave and refuses an empty one or one
// holding control characters (a title is printed to terminals).
func checkTitle(title string) (string, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return "", errors.New("the title is empty")
	}
	if strings.IndexFunc(title, unicode.IsControl) >= 0 {
		return "", errors.New("the title holds control characters")
	}
	return title, nil
}

func renameSession(ctx context.Context, g *globalFlags, id, title string, msg io.Writer) error {
	title, err := checkTitle(title)
	if err != nil {
		return usageError("rename %s: %v", id, err)
	}
	a, err := loadApp(g)
	if err != nil {
		return err
	}
	ro, err := a.openReadOnly(ctx)
	if errors.Is(err, storage.ErrNoDatabase) {
		return fmt.Errorf("no session %s: there are no sessions yet", id)
	}
	if err != nil {
		return err
	}
	s, err := lookupSession(ctx, ro, id)
	ro.Close()
	if err != nil {
		return err
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	s.Title = title
	if err := st.UpdateSession(ctx, s); err != nil {
		return fmt.Errorf("rename session %s: %w", s.ID, err)
	}
	fmt.Fprintf(msg, "renamed %s\n", s.ID)
	return nil
}
