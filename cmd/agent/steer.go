package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/attachments"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
)

// steerFlags are `agent steer`'s flags.
type steerFlags struct {
	sessionFlags
	queue  bool
	images []string
}

// newSteerCmd is `agent steer`: another process gives a running session a
// message, as Enter (or Tab, --queue) does in the chat. The message is
// queued in the database; the process driving the session delivers it at
// its turn's next step (or after the turn), and its JSON stream names it
// by the id printed here (queued, dequeued, steered, merged).
func newSteerCmd(g *globalFlags) *cobra.Command {
	f := &steerFlags{}
	cmd := &cobra.Command{
		Use:   "steer [--session ID | -c] [--queue] [--image FILE]... [--json] MESSAGE...",
		Short: "Give a message to a session that is running in another process",
		Long: `steer queues a message for a session another agent process is driving
(agent run, the chat): it goes into the running turn at its next step, or,
with --queue, starts a turn of its own after it, like Enter and Tab in the
chat. Images (--image) go with it. It prints the queued message's id, which
the running process's JSON events (queued, dequeued, steered, merged) name.
A session nobody is running is refused: nothing would deliver the message.`,
		Example: `  agent steer -c "use tabs, not spaces"
  agent steer --session 01JX3K --queue --image shot.png "then fix this layout"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return steerSession(cmd.Context(), g, f, strings.Join(args, " "), cmd.OutOrStdout())
		},
	}
	addSessionFlags(cmd, &f.sessionFlags, true)
	cmd.Flags().BoolVar(&f.queue, "queue", false, "start a turn after the running one instead of steering it")
	cmd.Flags().StringArrayVar(&f.images, "image", nil, "attach an image file (PNG, JPEG, GIF or WebP, at most 20 MB); repeatable; the model needs vision")
	return cmd
}

func steerSession(ctx context.Context, g *globalFlags, f *steerFlags, text string, out io.Writer) error {
	if strings.TrimSpace(text) == "" {
		return usageError("steer: give the message as arguments")
	}
	images, err := readImages(f.images)
	if err != nil {
		return err
	}
	c, err := openCommand(ctx, g, &f.sessionFlags, sessionOpening{access: writing})
	if err != nil {
		return err
	}
	defer c.Close()
	a, st, id := c.a, c.st, c.id
	if _, alive, err := st.LeaseHolder(ctx, id); err != nil {
		return err
	} else if !alive {
		return fmt.Errorf("session %s is not running, so nothing would deliver the message: send it with agent run --session %s", id, id)
	}
	sess, err := st.GetSession(ctx, id)
	if err != nil {
		return err
	}
	if info, _ := a.cfg.ModelInfo(sess.Model); len(images) > 0 && !info.SendsImages() {
		return noVision(sess.Model)
	}
	var files []*message.FileState
	for _, im := range images {
		f, err := attachments.ForDataDir(a.cfg.DataDir).Add(im.path, im.data)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	kind := message.KindSteer
	if f.queue {
		kind = message.KindQueue
	}
	q, err := st.EnqueueKind(ctx, id, text, kind, files...)
	if err != nil {
		return err
	}
	if f.json {
		return json.NewEncoder(out).Encode(map[string]any{"id": q.ID, "session_id": id, "kind": kind, "images": len(files)})
	}
	_, err = fmt.Fprintln(out, q.ID)
	return err
}

// steerFromStdin gives each line of in to the running turn as steering
// (`agent run --stdin-steer`): a script drives a live run by writing lines.
// Consecutive lines that arrive before the next step are coalesced like
// any steering. A line that comes once the run has ended is not sent, and
// a notice says so. It returns at the end of in or when ctx is done; a
// read blocked on a pipe ends with the process.
func steerFromStdin(ctx context.Context, r *loop.Runner, in io.Reader, out *eventWriter) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxStdinPrompt)
	for sc.Scan() {
		if ctx.Err() != nil {
			return
		}
		line := sc.Text()
		ok, err := r.Steer(ctx, line)
		switch {
		case err != nil:
			out.notice("not steered: " + err.Error())
		case !ok && strings.TrimSpace(line) != "":
			out.notice("not steered, the run has ended: " + line)
		}
	}
}
