package hooks

// One hook's process: sh -c COMMAND in the session's directory, the event
// on stdin, both outputs captured up to MaxOutputBytes, its process group
// killed at the timeout or when the caller's context is done. A hook that
// opted into the sandbox (Hook.Sandbox) runs in it, or fails to start
// saying why when no sandbox runs here.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/ctxloop/agent/internal/sandbox"
	"github.com/ctxloop/agent/internal/secrets"
)

// waitDelay is how long Fire waits, after the shell exited or was killed,
// for a leftover process still holding its output open.
const waitDelay = 2 * time.Second

// baseEnv is env without the agent's secrets.
func baseEnv(env, secretValues []string) []string {
	return secrets.Environ(env, nil, secretValues...)
}

func (r *Runner) exec(ctx context.Context, h *hook, ev Event, payload []byte) execResult {
	hctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	cmd := exec.CommandContext(hctx, "sh", "-c", h.Command)
	cmd.Dir = ev.Dir
	env := make([]string, 0, len(r.env)+4)
	env = append(env, r.env...)
	cmd.Env = append(env,
		"AGENT_PROJECT_DIR="+ev.Dir, "CLAUDE_PROJECT_DIR="+ev.Dir,
		"AGENT_SESSION_ID="+ev.SessionID, "AGENT_HOOK_EVENT="+ev.Name)
	cmd.Stdin = bytes.NewReader(payload)
	stdout, stderr := &boundedBuffer{max: MaxOutputBytes}, &boundedBuffer{max: MaxOutputBytes}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	ownGroup(cmd)
	cmd.WaitDelay = waitDelay
	start := time.Now()
	if h.Sandbox != "" && h.Sandbox != sandbox.ModeOff {
		// Opted in: confined, or not run at all (never silently unconfined).
		p := r.sandbox
		p.Mode, p.Workspace = h.Sandbox, ev.Dir
		cleanup, err := sandbox.Wrap(cmd, p)
		if err != nil {
			return execResult{exitCode: -1, timeout: h.Timeout.String(), err: fmt.Errorf("sandbox %s: %w", h.Sandbox, err)}
		}
		defer cleanup()
	}
	release, err := r.children.Start(cmd)
	if err == nil {
		err = cmd.Wait()
		release()
	}
	res := execResult{stdout: stdout.String(), stderr: stderr.String(), exitCode: -1, timeout: h.Timeout.String(), duration: time.Since(start)}
	var exitErr *exec.ExitError
	switch {
	case hctx.Err() != nil && ctx.Err() == nil:
		res.timedOut = true
		res.err = fmt.Errorf("timed out after %s", h.Timeout)
	case ctx.Err() != nil:
		res.err = fmt.Errorf("cancelled: %w", ctx.Err())
	case err == nil:
		res.exitCode = 0
	case errors.As(err, &exitErr) && exitErr.Exited():
		res.exitCode = exitErr.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay):
		res.exitCode = cmd.ProcessState.ExitCode()
	default:
		res.err = err
	}
	return res
}

// boundedBuffer keeps the first max bytes written to it and counts the
// rest.
type boundedBuffer struct {
	max     int
	buf     bytes.Buffer
	dropped int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	room := b.max - b.buf.Len()
	if room >= len(p) {
		b.buf.Write(p)
		return len(p), nil
	}
	if room > 0 {
		b.buf.Write(p[:room])
	}
	b.dropped += len(p) - max(room, 0)
	return len(p), nil
}

func (b *boundedBuffer) String() string {
	if b.dropped == 0 {
		return b.buf.String()
	}
	return fmt.Sprintf("%s\n[hook output truncated: %d more bytes]", b.buf.String(), b.dropped)
}
