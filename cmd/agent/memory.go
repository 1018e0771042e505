package main

// memory.go: agent memory list|add|rm — the facts kept across sessions
// (internal/memory), for this directory and for the user.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/memory"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/termsafe"
)

func newMemoryCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "List, add and remove the facts kept across sessions",
		Long: `Memories are facts kept across sessions: for this project (its git
repository, or this directory outside one) or for you (every project). The model saves them with the remember tool
(config memory.remember: "ask", "propose", "allow" or "off") and finds them
with memory_search; each session's system prompt says how many there are
and carries the pinned ones. Review, edit and pin them with /memory in the
chat.`,
		Example: `  agent memory list
  agent memory add "The tests run with make check"
  agent memory add --user --pin "I prefer table-driven tests"
  agent memory rm 01JX3K…`,
		Args: cobra.NoArgs,
	}
	var asJSON, user, pin, anyScope bool
	list := &cobra.Command{
		Use:     "list [--json]",
		Short:   "List this project's memories and yours",
		Example: "  agent memory list\n  agent memory list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return listMemories(cmd.Context(), g, asJSON, cmd.OutOrStdout())
		},
	}
	add := &cobra.Command{
		Use:     "add [--user] [--pin] [--json] TEXT...",
		Short:   "Remember a fact for this project (or, with --user, for every project)",
		Example: "  agent memory add \"The tests run with make check\"\n  agent memory add --user --pin \"I prefer table-driven tests\"",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return addMemory(cmd.Context(), g, strings.Join(args, " "), user, pin, asJSON, cmd.OutOrStdout())
		},
	}
	add.Flags().BoolVar(&user, "user", false, "keep it for every project, not this project only")
	add.Flags().BoolVar(&pin, "pin", false, "pin it: every session's system prompt carries it")
	rm := &cobra.Command{
		Use:     "rm ID [--any] [--json]",
		Short:   "Remove a memory of this project or yours (--any: of any project)",
		Example: "  agent memory list   # the ids\n  agent memory rm 01JX3K…",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return removeMemory(cmd.Context(), g, args[0], anyScope, asJSON, cmd.OutOrStdout())
		},
	}
	rm.Flags().BoolVar(&anyScope, "any", false, "remove it even when it belongs to another project")
	for _, c := range []*cobra.Command{list, add, rm} {
		c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	}
	cmd.AddCommand(list, add, rm)
	return cmd
}

func listMemories(ctx context.Context, g *globalFlags, asJSON bool, out io.Writer) error {
	a, err := loadApp(g)
	if err != nil {
		return err
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	ms, err := st.Memories().List(ctx, memory.Scopes(a.dir)...)
	if err != nil {
		return err
	}
	if asJSON {
		if ms == nil {
			ms = []storage.Memory{}
		}
		return printJSON(out, ms)
	}
	if len(ms) == 0 {
		fmt.Fprintf(out, "no memories for %s (add one with agent memory add TEXT)\n", termsafe.Strip(a.dir))
		return nil
	}
	for _, m := range ms {
		fmt.Fprintln(out, memoryLine(m))
	}
	return nil
}

// memoryLine is a memory as the text listing shows it: id, scope, marks
// and its text on one line, with no terminal escapes.
func memoryLine(m storage.Memory) string {
	scope := "project"
	if m.Scope == storage.ScopeUser {
		scope = "user"
	}
	var marks []string
	if m.Pinned {
		marks = append(marks, "pinned")
	}
	if m.Status == storage.MemoryProposed {
		marks = append(marks, "proposed")
	}
	if len(marks) > 0 {
		scope += ", " + strings.Join(marks, ", ")
	}
	return fmt.Sprintf("%s  [%s] %s", m.ID, scope, strings.Join(strings.Fields(termsafe.Strip(m.Text)), " "))
}

func addMemory(ctx context.Context, g *globalFlags, text string, user, pin, asJSON bool, out io.Writer) error {
	a, err := loadApp(g)
	if err != nil {
		return err
	}
	if why := memory.Refusal(text, a.cfg.APIKey); why != "" {
		return usageError("%s", why)
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	m := storage.Memory{Scope: memory.Project(a.dir), Text: text, Pinned: pin}
	if user {
		m.Scope = storage.ScopeUser
	}
	if err := st.Memories().Add(ctx, &m); err != nil {
		return err
	}
	if asJSON {
		return printJSON(out, m)
	}
	fmt.Fprintf(out, "remembered %s\n", memoryLine(m))
	return nil
}

// removeMemory removes the memory id when this directory's session would
// see it (this project's or the user's); another project's only with
// anyScope, and the output names that project.
func removeMemory(ctx context.Context, g *globalFlags, id string, anyScope, asJSON bool, out io.Writer) error {
	a, err := loadApp(g)
	if err != nil {
		return err
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	notFound := fmt.Errorf("no memory %s (agent memory list shows their ids)", termsafe.Strip(id))
	m, err := st.Memories().Get(ctx, id)
	if errors.Is(err, storage.ErrNotFound) {
		return notFound
	} else if err != nil {
		return err
	}
	var elsewhere string // the other project it belongs to
	if !slices.Contains(memory.Scopes(a.dir), m.Scope) {
		elsewhere = m.Scope
		if !anyScope {
			return fmt.Errorf("memory %s belongs to the project %s, not this one; pass --any to remove it from here", termsafe.Strip(id), termsafe.Strip(elsewhere))
		}
	}
	if err := st.Memories().Remove(ctx, id); err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return notFound
		}
		return err
	}
	if asJSON {
		removed := map[string]string{"removed": id}
		if elsewhere != "" {
			removed["project"] = elsewhere
		}
		return printJSON(out, removed)
	}
	if elsewhere != "" {
		fmt.Fprintf(out, "removed memory %s (of the project %s)\n", id, termsafe.Strip(elsewhere))
		return nil
	}
	fmt.Fprintf(out, "removed memory %s\n", id)
	return nil
}

func printJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// proposedWatch finds the memories the model proposed during a headless
// run (memory.remember "propose"), to say so in one line at its end: they
// wait for the user's review, which a run cannot give.
type proposedWatch struct {
	st     *storage.Store
	scopes []string
	before map[string]bool // proposed before the run
}

// watchProposed notes the memories of dir proposed before the run.
func watchProposed(ctx context.Context, st *storage.Store, dir string) proposedWatch {
	w := proposedWatch{st: st, scopes: memory.Scopes(dir), before: map[string]bool{}}
	for _, m := range w.proposed(ctx) {
		w.before[m.ID] = true
	}
	return w
}

func (w proposedWatch) proposed(ctx context.Context) []storage.Memory {
	ms, _ := w.st.Memories().List(ctx, w.scopes...) // best effort: a note
	var out []storage.Memory
	for _, m := range ms {
		if m.Status == storage.MemoryProposed {
			out = append(out, m)
		}
	}
	return out
}

// note is the line about the memories proposed since watchProposed, ""
// for none.
func (w proposedWatch) note(ctx context.Context) string {
	var texts []string
	for _, m := range w.proposed(ctx) {
		if !w.before[m.ID] {
			texts = append(texts, oneLine(termsafe.Strip(m.Text), 60))
		}
	}
	switch len(texts) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("the model proposed 1 memory for your review (%s): accept or reject it with /memory in the chat; agent memory list shows it", texts[0])
	}
	shown := strings.Join(texts[:min(len(texts), 3)], "; ")
	if len(texts) > 3 {
		shown += fmt.Sprintf("; and %d more", len(texts)-3)
	}
	return fmt.Sprintf("the model proposed %d memories for your review (%s): accept or reject them with /memory in the chat; agent memory list shows them", len(texts), shown)
}
