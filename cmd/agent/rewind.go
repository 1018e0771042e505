package main

// Checkpoints on the command line: `agent rewind`, `agent diff`, `agent
// sessions fork`, and the snapshot store's upkeep (a removed session's
// snapshots, the start-up cleanup to the cap).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/snapshot"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/termsafe"
)

type rewindFlags struct {
	sessionFlags
	to           string
	turns        int
	code, conv   bool
	force        bool
	redo         bool
	turnsChanged bool
}

func newRewindCmd(g *globalFlags) *cobra.Command {
	f := &rewindFlags{}
	cmd := &cobra.Command{
		Use:   "rewind [--session ID | -c] [--to MESSAGE_ID | --turns N | --redo] [--code | --conversation] [--force]",
		Short: "Take a session back: the files its last turns changed, its conversation, or both",
		Long: `rewind takes the session back to before its last turn (--turns N: the last
N turns; --to: a message and everything after it): the files those turns
changed, by any tool or shell command, are restored as the turns found
them, and the messages are marked as taken back (still in the export, no
longer sent to the model). --code restores the files only, --conversation
takes back the messages only.

Before touching a file, rewind compares it with the state the agent itself
last left it in (turn by turn, not only the last): if someone else changed
it since, rewind names it and touches nothing; --force restores it anyway.
A rewind is itself snapshotted: --redo (or /redo in the chat) reapplies the
last rewind, bringing back the files as it found them — a version --force
overwrote included.`,
		Example: `  agent rewind -c
  agent rewind --turns 3 --code
  agent rewind -c --redo
  agent rewind --session 01JX3K --to 01JX3M7Q --conversation`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.turnsChanged = cmd.Flags().Changed("turns")
			return runRewind(cmd.Context(), g, f, os.Stdout, os.Stderr)
		},
	}
	addSessionFlags(cmd, &f.sessionFlags, false)
	cmd.Flags().StringVar(&f.to, "to", "", "take back this message and everything after it")
	cmd.Flags().IntVar(&f.turns, "turns", 1, "take back the last N turns")
	cmd.Flags().BoolVar(&f.code, "code", false, "restore the files only")
	cmd.Flags().BoolVar(&f.conv, "conversation", false, "take back the messages only")
	cmd.Flags().BoolVar(&f.force, "force", false, "restore files changed outside the agent too")
	cmd.Flags().BoolVar(&f.redo, "redo", false, "reapply the last rewind (its files as it found them, its messages)")
	return cmd
}

func runRewind(ctx context.Context, g *globalFlags, f *rewindFlags, out, msg io.Writer) error {
	mode := message.RewindBoth
	switch {
	case f.code && f.conv:
		return usageError("--code and --conversation are mutually exclusive (give neither for both)")
	case f.code:
		mode = message.RewindCode
	case f.conv:
		mode = message.RewindConversation
	}
	if f.to != "" && f.turnsChanged {
		return usageError("--to and --turns are mutually exclusive")
	}
	if f.turns < 1 {
		return usageError("--turns must be 1 or more")
	}
	if f.redo && (f.to != "" || f.turnsChanged || f.code || f.conv) {
		return usageError("--redo reapplies the last rewind as it was: it takes no --to, --turns, --code or --conversation")
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	c, err := openCommand(ctx, g, &f.sessionFlags, sessionOpening{access: driving, warn: true, runner: true})
	if err != nil {
		return err
	}
	defer c.Close()
	r, id := c.r, c.id
	for _, n := range r.Notes() {
		fmt.Fprintln(msg, "agent:", n)
	}
	if f.redo {
		return runRedo(ctx, r, id, f.force, out, msg)
	}
	to := f.to
	if to == "" {
		whole, _ := loop.WholeHistory(ctx, r) // before the window Open read too
		turns := loop.Turns(whole)
		if len(turns) < f.turns {
			return fmt.Errorf("rewind: the session has %d turn(s) to take back, not %d", len(turns), f.turns)
		}
		to = turns[len(turns)-f.turns].MessageID
	}
	res, err := r.Rewind(ctx, to, loop.RewindOptions{Mode: mode, Force: f.force})
	if refusedOutside(err, msg) {
		return &exitError{code: exitFailure}
	}
	if err != nil {
		return err
	}
	what := map[string]string{message.RewindBoth: "files and conversation", message.RewindCode: "files", message.RewindConversation: "conversation"}[mode]
	fmt.Fprintf(out, "rewound session %s (%s) to before message %s\n", id, what, to)
	if mode != message.RewindCode {
		fmt.Fprintf(out, "took back %d message(s)\n", len(res.Messages))
	}
	if d := loop.DescribeRestore(res.Restore); d != "" {
		fmt.Fprintln(out, termsafe.Strip(d))
	}
	if res.FilesNote != "" {
		fmt.Fprintf(out, "files not restored: %s\n", res.FilesNote)
	}
	if lost := loop.NotRestorableLines(res.Lost); lost != "" {
		fmt.Fprintln(out, lost)
	}
	if res.UserText != "" {
		fmt.Fprintf(out, "your message was:\n  %s\n", termsafe.Strip(strings.ReplaceAll(oneLine(res.UserText, 500), "\n", "\n  ")))
	}
	return nil
}

// refusedOutside prints a refusal over outside changes (and reports
// whether err was one).
func refusedOutside(err error, msg io.Writer) bool {
	var oc *snapshot.OutsideChangesError
	if !errors.As(err, &oc) {
		return false
	}
	fmt.Fprintln(msg, "agent: these files changed outside the agent since it last left them, or not surely by it; nothing was restored:")
	for _, c := range oc.Files {
		line := fmt.Sprintf("  %s (%s)", termsafe.Strip(c.Path), c.Status)
		if why := oc.Why[c.Path]; why != "" {
			line += ": " + why
		}
		fmt.Fprintln(msg, line)
	}
	fmt.Fprintln(msg, "agent: run again with --force to restore them anyway (their current content is snapshotted first; --redo brings it back)")
	return true
}

// runRedo is `agent rewind --redo`: the last rewind reapplied.
func runRedo(ctx context.Context, r *loop.Runner, id string, force bool, out, msg io.Writer) error {
	redo := r.Redo
	if force {
		redo = r.RedoForce
	}
	res, err := redo(ctx)
	if refusedOutside(err, msg) {
		return &exitError{code: exitFailure}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "redid the last rewind of session %s: brought back %d message(s)\n", id, len(res.Messages))
	if d := loop.DescribeRestore(res.Restore); d != "" {
		fmt.Fprintln(out, termsafe.Strip(d))
	}
	return nil
}

type diffFlags struct {
	sessionFlags
	turn int
}

func newDiffCmd(g *globalFlags) *cobra.Command {
	f := &diffFlags{}
	cmd := &cobra.Command{
		Use:   "diff [--session ID | -c] [--turn N]",
		Short: "Print the changes a turn made to the files (the last turn by default)",
		Long: `diff prints, as a unified diff, what a turn of the session changed in its
directory — by write, edit or a shell command — from the snapshots taken
around its steps. --turn N picks the session's N-th turn (1 is the first);
the default is the last. Coloured on a terminal, plain otherwise.`,
		Example: `  agent diff -c
  agent diff --session 01JX3K --turn 2 | less`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDiff(cmd.Context(), g, f, os.Stdout, toTerminal(os.Stdout))
		},
	}
	addSessionFlags(cmd, &f.sessionFlags, false)
	cmd.Flags().IntVar(&f.turn, "turn", 0, "the N-th turn of the session (default: the last)")
	return cmd
}

func runDiff(ctx context.Context, g *globalFlags, f *diffFlags, out io.Writer, colour bool) error {
	if f.turn < 0 {
		return usageError("--turn must be 1 or more")
	}
	c, err := openCommand(ctx, g, &f.sessionFlags, sessionOpening{access: readOnly})
	if err != nil {
		return err
	}
	defer c.Close()
	a, st, id := c.a, c.st, c.id
	sess, err := st.GetSession(ctx, id)
	if err != nil {
		return err
	}
	hist, err := st.LoadHistory(ctx, id)
	if err != nil {
		return err
	}
	snaps, err := a.openSnapshots(ctx, sess.Dir)
	if err != nil {
		return err
	}
	d, err := loop.DiffTurn(ctx, snaps, hist, f.turn)
	if err != nil {
		return err
	}
	for _, o := range d.Outside {
		who := o.Why
		if o.Session != "" {
			who = "by session " + o.Session
		}
		fmt.Fprintf(os.Stderr, "not the agent's: %s (%s, %s)\n", termsafe.Strip(o.Path), o.Status, who)
	}
	if lost := loop.NotRestorableLines(d.Lost); lost != "" {
		fmt.Fprintln(os.Stderr, lost)
	}
	if len(d.Patch.Files) == 0 {
		if len(d.Lost) == 0 {
			fmt.Fprintf(os.Stderr, "turn %d changed no file\n", d.Turn.N)
		} else {
			fmt.Fprintf(os.Stderr, "turn %d changed no file a snapshot holds\n", d.Turn.N)
		}
		return nil
	}
	text := termsafe.Strip(d.Patch.Text)
	if colour {
		text = colourDiff(text)
	}
	_, err = io.WriteString(out, text)
	if d.Patch.Truncated {
		fmt.Fprintln(os.Stderr, "agent: the diff was cut at", snapshot.DefaultPatchMaxBytes, "bytes")
	}
	return err
}

// colourDiff colours a unified diff for a terminal: file headers bold,
// hunks cyan, additions green, deletions red. In a hunk a line is content
// whatever it looks like: "--- x" is the removed line "-- x".
func colourDiff(text string) string {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	inHunk := false
	for _, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		nl := l[len(body):]
		switch {
		case strings.HasPrefix(body, "diff --git"):
			inHunk = false
			b.WriteString("\x1b[1m" + body + "\x1b[0m" + nl)
		case !inHunk && (strings.HasPrefix(body, "+++") || strings.HasPrefix(body, "---")):
			b.WriteString("\x1b[1m" + body + "\x1b[0m" + nl)
		case strings.HasPrefix(body, "@@"):
			inHunk = true
			b.WriteString("\x1b[36m" + body + "\x1b[0m" + nl)
		case strings.HasPrefix(body, "+"):
			b.WriteString("\x1b[32m" + body + "\x1b[0m" + nl)
		case strings.HasPrefix(body, "-"):
			b.WriteString("\x1b[31m" + body + "\x1b[0m" + nl)
		default:
			b.WriteString(l)
		}
	}
	return b.String()
}

func newSessionsForkCmd(g *globalFlags) *cobra.Command {
	var at string
	cmd := &cobra.Command{
		Use:   "fork ID [--at MESSAGE_ID]",
		Short: "Copy a session (up to a message) into a new session",
		Long: `fork copies a session into a new one in the same directory with the same
model — all of it, or up to and including --at MESSAGE_ID — so that an
alternative can be tried without losing the original. Messages taken back
by a rewind are not copied. The new session shares the original's
checkpoints: its /undo and agent diff work on the copied turns.`,
		Example: `  agent sessions fork 01JX3K
  agent sessions fork 01JX3K --at 01JX3M7Q`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSessionArgs(g, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFork(cmd.Context(), g, args[0], at, os.Stdout, os.Stderr)
		},
	}
	cmd.Flags().StringVar(&at, "at", "", "copy up to and including this message")
	return cmd
}

func runFork(ctx context.Context, g *globalFlags, id, at string, out, msg io.Writer) error {
	a, err := loadApp(g)
	if err != nil {
		return err
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	s, err := lookupSession(ctx, st, id)
	if err != nil {
		return err
	}
	snaps, err := a.openSnapshots(ctx, s.Dir)
	if err != nil {
		fmt.Fprintln(msg, "agent:", err)
		snaps = nil
	}
	fork, err := loop.ForkSession(ctx, st, snaps, s.ID, at)
	if errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("%w (`agent sessions export %s --json` lists the message ids)", err, s.ID)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "forked session %s into %s\n", s.ID, fork.ID)
	return nil
}

// openSnapshots opens the snapshot store of dir, saying why checkpoints
// are off when they are.
func (a *app) openSnapshots(ctx context.Context, dir string) (*snapshot.Store, error) {
	if !a.cfg.Snapshots.Enabled {
		return nil, errors.New("checkpoints are switched off (checkpoints.enabled in your config)")
	}
	return snapshot.Open(ctx, a.cfg.DataDir, dir, snapshot.Options{MaxFileBytes: a.cfg.Snapshots.MaxFileBytes, IgnoredMaxBytes: a.cfg.Snapshots.IgnoredMaxBytes, Secrets: secretsOf(a.cfg)})
}

// dropSnapshots deletes a removed session's snapshots (what no other
// session shares).
func (a *app) dropSnapshots(ctx context.Context, s *message.Session) error {
	if !a.cfg.Snapshots.Enabled || s.Dir == "" {
		return nil
	}
	if _, err := os.Stat(s.Dir); err != nil || snapshot.DiskBytes(a.cfg.DataDir, s.Dir) == 0 {
		return nil // no directory or no store: nothing to drop
	}
	snaps, err := a.openSnapshots(ctx, s.Dir)
	if err != nil {
		return nil
	}
	return snaps.DropSession(ctx, s.ID)
}

// pruneIntervalS is how often the start-up cleanup deletes the snapshots
// no session names; a store over its cap is cleaned at every start.
const pruneIntervalS = 24 * 3600

// pruneSnapshots keeps this directory's snapshot store bounded: once a
// day the snapshots no session names go, and whenever the store is over
// snapshots.cap_bytes the oldest go until it fits. It runs in the
// background at the start of a command that drives a session.
func (a *app) pruneSnapshots(ctx context.Context, st *storage.Store) error {
	if !a.cfg.Snapshots.Enabled || snapshot.Interrupted(a.cfg.DataDir, a.dir) {
		return nil // the session's own Open finishes the restore and reports it
	}
	// Decided without a git process (a start pays nothing for a store
	// that needs no pruning, and none is created here): a store that does
	// not exist yet or is under its cap is left alone until the daily prune.
	onDisk := snapshot.DiskBytes(a.cfg.DataDir, a.dir)
	if onDisk == 0 {
		return nil
	}
	marker := filepath.Join(a.cfg.DataDir, "snapshots", "last-prune")
	stamp := func() error {
		return os.WriteFile(marker, []byte(strconv.FormatInt(time.Now().Unix(), 10)+"\n"), 0o600)
	}
	b, err := os.ReadFile(marker)
	if err != nil {
		return stamp() // the first start: nothing is old yet
	}
	due := true
	if last, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
		due = time.Now().Unix()-last > pruneIntervalS
	}
	capBytes := a.cfg.Snapshots.CapBytes
	if !due && (capBytes <= 0 || onDisk <= capBytes) {
		return nil
	}
	snaps, err := a.openSnapshots(ctx, a.dir)
	if err != nil {
		return nil
	}
	named, err := st.SnapshotIDs(ctx)
	if err != nil {
		return err
	}
	keep := make(map[snapshot.ID]bool, len(named))
	for id := range named {
		keep[snapshot.ID(id)] = true
	}
	if _, err := snaps.Prune(ctx, keep, capBytes); err != nil {
		return err
	}
	return stamp()
}
