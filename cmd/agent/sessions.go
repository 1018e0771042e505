package main

// `agent sessions`: list, show, export and remove sessions. Every command
// but rm opens the database read-only and never writes; rm asks before it
// deletes and refuses a session another live process drives. Session ids
// may be given as unique prefixes (six characters or more).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/termsafe"
)

// contextRows is how many of the listed sessions (the newest) get their
// context figure. It is the token calculator's total, which needs the
// session's whole history and its directory's git status: a few
// milliseconds per session, too slow for a thousand of them, while the
// rest of a row costs one indexed query.
const contextRows = 20

// contextWorkers bounds the context figures computed at once.
const contextWorkers = 4

type sessionsFlags struct {
	json bool
	all  bool
}

func newSessionsCmd(g *globalFlags) *cobra.Command {
	f := &sessionsFlags{}
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List sessions of this directory, newest first",
		Long: fmt.Sprintf(`sessions lists the sessions of the current directory (of every directory
with --all), most recently updated first: id, title, directory, model,
created and updated times, message count, context used and cost.

Context used is the token calculator's total (what `+"`agent context`"+` shows). It
reads each session's whole history, so it is given for the %d newest
sessions listed; the others show "-" (null in JSON).

Subcommands show, export, rename and rm take a session id or a unique prefix of
one (six characters or more).`, contextRows),
		Example: `  agent sessions
  agent sessions --all --json | jq -r '.[] | "\(.id) \(.title)"'
  agent sessions show 01JX3K
  agent sessions export 01JX3K --json > session.json
  agent sessions rename 01JX3K fix the parser
  agent sessions rm 01JX3K`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return listSessions(cmd.Context(), g, f, os.Stdout)
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&f.all, "all", false, "list the sessions of every directory")
	cmd.AddCommand(newSessionsShowCmd(g), newSessionsExportCmd(g), newSessionsRmCmd(g), newSessionsRenameCmd(g), newSessionsForkCmd(g), newSessionsSearchCmd(g))
	return cmd
}

// sessionRow is one session in `agent sessions --json`.
type sessionRow struct {
	ID        string        `json:"id"`
	Title     string        `json:"title"`
	Dir       string        `json:"dir"`
	Model     string        `json:"model"`
	CreatedAt time.Time     `json:"created_at"`
	UpdatedAt time.Time     `json:"updated_at"`
	Messages  int           `json:"messages"`
	Context   *rowContext   `json:"context"`
	Usage     message.Usage `json:"usage"`
	CostUSD   float64       `json:"cost_usd"`
}

// rowContext is a session's context use, from the token calculator.
type rowContext struct {
	Total  int64        `json:"total"`
	Window int64        `json:"window"`
	Basis  tokens.Basis `json:"basis"`
}

func listSessions(ctx context.Context, g *globalFlags, f *sessionsFlags, out io.Writer) error {
	a, err := loadApp(g)
	if err != nil {
		return err
	}
	dir := a.dir
	if f.all {
		dir = ""
	}
	rows, err := a.sessionRows(ctx, dir)
	if err != nil {
		return err
	}
	if f.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(rows) == 0 {
		if f.all {
			fmt.Fprintln(os.Stderr, "no sessions yet")
		} else {
			fmt.Fprintf(os.Stderr, "no sessions in %s yet (`agent sessions --all` lists every directory's)\n", a.dir)
		}
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	header := "ID\tCREATED\tUPDATED\tMSGS\tCONTEXT\tCOST\tMODEL\t"
	if f.all {
		header += "DIR\t"
	}
	fmt.Fprintln(tw, header+"TITLE")
	now := time.Now()
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t", r.ID, shortTime(r.CreatedAt, now), shortTime(r.UpdatedAt, now),
			r.Messages, formatContext(r.Context), costText(a.cfg, r.Model, r.CostUSD), termsafe.Strip(oneLine(r.Model, 40)))
		if f.all {
			fmt.Fprintf(tw, "%s\t", termsafe.Strip(homeRelative(r.Dir)))
		}
		fmt.Fprintln(tw, termsafe.Strip(oneLine(r.Title, 60)))
	}
	return tw.Flush()
}

// sessionRows lists the sessions of dir ("" for all), newest first, with
// the context figure of the newest contextRows. A missing database has no
// sessions.
func (a *app) sessionRows(ctx context.Context, dir string) ([]sessionRow, error) {
	st, err := a.openReadOnly(ctx)
	if errors.Is(err, storage.ErrNoDatabase) {
		return []sessionRow{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer st.Close()
	list, err := st.ListSessions(ctx, dir)
	if err != nil {
		return nil, err
	}
	counts, err := st.MessageCounts(ctx, dir)
	if err != nil {
		return nil, err
	}
	rows := make([]sessionRow, len(list))
	for i, s := range list {
		rows[i] = sessionRow{ID: s.ID, Title: s.Title, Dir: s.Dir, Model: s.Model, CreatedAt: s.CreatedAt,
			UpdatedAt: s.UpdatedAt, Messages: counts[s.ID], Usage: s.Usage, CostUSD: s.CostUSD}
	}
	a.fillContext(ctx, st, rows[:min(len(rows), contextRows)])
	return rows, nil
}

// fillContext computes the context figure of each row, a few at a time. A
// session whose figure cannot be computed keeps none.
func (a *app) fillContext(ctx context.Context, st *storage.Store, rows []sessionRow) {
	reg := a.offeredTools()
	sem := make(chan struct{}, contextWorkers)
	var wg sync.WaitGroup
	for i := range rows {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			reading, _, err := loop.StoredReading(ctx, st, a.cfg, reg, rows[i].ID)
			if err == nil {
				rows[i].Context = &rowContext{Total: reading.Total, Window: reading.Window, Basis: reading.Basis}
			}
		}()
	}
	wg.Wait()
}

func formatContext(c *rowContext) string {
	if c == nil {
		return "-"
	}
	approx := ""
	if c.Basis == tokens.BasisEstimated {
		approx = "~"
	}
	if c.Window <= 0 {
		return approx + formatTokens(c.Total)
	}
	return fmt.Sprintf("%s%s/%s", approx, formatTokens(c.Total), formatTokens(c.Window))
}

// formatTokens writes a token count briefly: 842, 5.5K, 128K, 1.0M.
func formatTokens(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return fmt.Sprintf("%.1fK", float64(n)/1000)
	case n < 1_000_000:
		return fmt.Sprintf("%dK", (n+500)/1000)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
}

// shortTime writes a time of this year as "Jan 02 15:04" and an older one
// as its date.
func shortTime(t, now time.Time) string {
	t = t.Local()
	if t.Year() == now.Year() {
		return t.Format("Jan 02 15:04")
	}
	return t.Format("2006-01-02")
}

// homeRelative writes a path under the home directory as ~/….
func homeRelative(dir string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return dir
	}
	if rel, err := filepath.Rel(home, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		if rel == "." {
			return "~"
		}
		return "~/" + rel
	}
	return dir
}

// readSession loads a session and its whole history from a read-only
// store.
func readSession(ctx context.Context, g *globalFlags, id string) (*message.Session, []message.Entry, *config.Config, error) {
	a, err := loadApp(g)
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := a.openReadOnly(ctx)
	if errors.Is(err, storage.ErrNoDatabase) {
		return nil, nil, nil, fmt.Errorf("no session %s: there are no sessions yet", id)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	defer st.Close()
	s, err := lookupSession(ctx, st, id)
	if err != nil {
		return nil, nil, nil, err
	}
	hist, err := st.LoadHistory(ctx, s.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	return s, hist, a.cfg, nil
}

// transcriptTo returns f, wrapped so that a terminal gets sanitised text.
func transcriptTo(f *os.File) io.Writer {
	if toTerminal(f) {
		return sanitisingWriter{f}
	}
	return f
}

// sanitisingWriter strips terminal controls from what it writes. Callers
// write whole documents, so no sequence is split between writes.
type sanitisingWriter struct{ w io.Writer }

func (s sanitisingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, termsafe.Strip(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func newSessionsShowCmd(g *globalFlags) *cobra.Command {
	var full bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print a session's transcript in Markdown",
		Long: `show prints a session's transcript in Markdown: what the user and the
model wrote, each tool call with its input and output, and where the
history was compacted. Long outputs and reasoning are clipped unless
--full is given.`,
		Example: `  agent sessions show 01JX3K
  agent sessions show 01JX3K --full | less`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSessionArgs(g, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, hist, cfg, err := readSession(cmd.Context(), g, args[0])
			if err != nil {
				return err
			}
			return writeTranscript(transcriptTo(os.Stdout), s, hist, transcriptOptions{full: full, cfg: cfg})
		},
	}
	cmd.Flags().BoolVar(&full, "full", false, "show tool outputs and reasoning whole")
	return cmd
}

// sessionExport is the document `agent sessions export --json` writes.
type sessionExport struct {
	// Format versions the document's shape.
	Format     int              `json:"format"`
	ExportedAt time.Time        `json:"exported_at"`
	Session    *message.Session `json:"session"`
	Messages   []message.Entry  `json:"messages"`
}

// exportFormat is the version of the export document.
const exportFormat = 1

func newSessionsExportCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "export ID",
		Short: "Write a whole session: Markdown, or JSON with every message and part",
		Long: `export writes a whole session to standard output. With --json it is one
JSON document: {"format", "exported_at", "session", "messages": [{"message",
"parts"}]}, with every part as stored (pruned outputs and reasoning
included). Without it, the complete Markdown transcript (as show --full).`,
		Example: `  agent sessions export 01JX3K --json > session.json
  agent sessions export 01JX3K --json | jq '[.messages[].parts[] | select(.type=="tool")] | length'
  agent sessions export 01JX3K > session.md`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSessionArgs(g, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, hist, cfg, err := readSession(cmd.Context(), g, args[0])
			if err != nil {
				return err
			}
			if !asJSON {
				return writeTranscript(transcriptTo(os.Stdout), s, hist, transcriptOptions{full: true, cfg: cfg})
			}
			if hist == nil {
				hist = []message.Entry{}
			}
			for i := range hist {
				if hist[i].Parts == nil {
					hist[i].Parts = []message.Part{}
				}
			}
			w := bufio.NewWriter(os.Stdout)
			enc := json.NewEncoder(w)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(sessionExport{Format: exportFormat, ExportedAt: time.Now().UTC(), Session: s, Messages: hist}); err != nil {
				return fmt.Errorf("export session %s: %w", s.ID, err)
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "write JSON with every message and part")
	return cmd
}

func newSessionsRmCmd(g *globalFlags) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:     "rm ID...",
		Aliases: []string{"delete"},
		Short:   "Delete sessions, after confirmation",
		Long: `rm deletes sessions with their messages, parts, queue, log and the
checkpoints no other session shares. It asks
"Delete session ID (title)? [y/N]" on standard input for each, unless --yes
is given, and refuses a session that another running agent drives.`,
		Example: `  agent sessions rm 01JX3K
  agent sessions rm --yes 01JX3K 01JX4M`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeSessionArgs(g, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			return removeSessions(cmd.Context(), g, args, yes, os.Stdin, os.Stderr)
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "delete without asking")
	return cmd
}

// errNotConfirmed is returned when standard input ends before an answer.
var errNotConfirmed = errors.New("no answer on standard input: nothing deleted (use --yes to delete without asking)")

// removeSessions deletes the sessions named by ids, asking on in (and
// writing to msg) unless yes. Every id is looked up before anything is
// deleted.
func removeSessions(ctx context.Context, g *globalFlags, ids []string, yes bool, in io.Reader, msg io.Writer) error {
	a, err := loadApp(g)
	if err != nil {
		return err
	}
	ro, err := a.openReadOnly(ctx)
	if errors.Is(err, storage.ErrNoDatabase) {
		return fmt.Errorf("no session %s: there are no sessions yet", ids[0])
	}
	if err != nil {
		return err
	}
	var found []*message.Session
	for _, id := range ids {
		s, err := lookupSession(ctx, ro, id)
		if err != nil {
			ro.Close()
			return err
		}
		found = append(found, s)
	}
	ro.Close()

	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	answers := bufio.NewReader(in)
	var failed error
	for _, s := range found {
		if !yes {
			title := s.Title
			if title == "" {
				title = "untitled"
			}
			fmt.Fprintf(msg, "Delete session %s (%s)%s? [y/N] ", s.ID, termsafe.Strip(oneLine(title, 60)), subagentsNote(ctx, st, s.ID))
			line, err := answers.ReadString('\n')
			if err != nil && line == "" {
				fmt.Fprintln(msg)
				return errNotConfirmed
			}
			if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
				fmt.Fprintf(msg, "kept %s\n", s.ID)
				continue
			}
		}
		err := a.deleteSession(ctx, st, s, func(w string) { fmt.Fprintln(msg, "agent:", w) })
		if err == nil {
			fmt.Fprintf(msg, "deleted %s\n", s.ID)
			continue
		}
		fmt.Fprintln(msg, "agent:", err)
		failed = &exitError{code: exitFailure}
	}
	return failed
}

// deleteSession deletes s with its subagents' sessions, the full outputs
// they saved and the checkpoints no other session shares; warn is told of
// what could not be removed after the rows went. `agent sessions rm` and
// the chat's /sessions picker both delete through it.
func (a *app) deleteSession(ctx context.Context, st *storage.Store, s *message.Session, warn func(string)) error {
	kids := subagentSessions(ctx, st, s.ID) // deleted with it (subagents.go)
	saved := savedOutputs(ctx, st, s.ID, a.outputDir())
	for _, k := range kids {
		saved = append(saved, savedOutputs(ctx, st, k.ID, a.outputDir())...)
	}
	err := st.DeleteSession(ctx, s.ID)
	if errors.Is(err, storage.ErrSessionBusy) {
		return fmt.Errorf("session %s is in use by another running agent; close it first (%w)", s.ID, err)
	}
	if err != nil {
		return err
	}
	for _, path := range saved {
		_ = os.Remove(path)
	}
	for _, sess := range append([]*message.Session{s}, kids...) {
		if err := a.dropSnapshots(ctx, sess); err != nil {
			warn(fmt.Sprintf("session %s: its checkpoints were not removed: %v", sess.ID, err))
		}
	}
	return nil
}

// savedOutputs lists the full tool outputs a session saved in outputDir,
// to delete them with it (they would otherwise expire on their own).
func savedOutputs(ctx context.Context, st *storage.Store, id, outputDir string) []string {
	hist, err := st.LoadHistory(ctx, id)
	if err != nil {
		return nil
	}
	var paths []string
	for _, e := range hist {
		for _, p := range e.Parts {
			if p.Tool == nil || p.Tool.FullOutputPath == "" {
				continue
			}
			rel, err := filepath.Rel(outputDir, p.Tool.FullOutputPath)
			if err == nil && filepath.IsLocal(rel) {
				paths = append(paths, p.Tool.FullOutputPath)
			}
		}
	}
	return paths
}
