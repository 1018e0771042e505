package main

import (
	"bufio"
	"context"
	"io"
	"strings"

	"github.com/ctxloop/agent/internal/loop"
)

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
