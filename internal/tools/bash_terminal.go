package tools

// bash_terminal.go: a foreground bash in the editor's terminal. When the
// session's Editor also offers terminals (Terminals: the Agent Client
// Protocol's terminal/*, internal/acp), a bash call runs there, so the
// editor shows it live, under these rules:
//
//   - The permission rules were applied before Run, as for any bash.
//   - The sandbox wins: when it is on, the command runs confined in the
//     agent's own process (the editor's terminal cannot be confined).
//   - background: true stays the agent's own job (bash_background.go).
//   - The output the model reads is bash's: secrets redacted, escapes
//     sanitised, head and tail kept within the same limits, the whole
//     output saved (bashResult). The editor keeps at most the last
//     terminalOutputMax bytes of it (or Limits.SavedOutputMaxBytes).
//   - The command's environment names the agent's secrets' variables
//     empty (the editor's environment is not the agent's to scrub), and
//     sets the pagers off as bash does.
//   - A terminal the editor cannot create falls back to the agent's own
//     process; a cancel or the timeout kills the terminal's command.

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/secrets"
)

// terminalOutputMax bounds the output the editor keeps for the agent.
const terminalOutputMax = 8 << 20

// Terminals is an Editor that runs commands in its own terminals.
type Terminals interface {
	// RunCommand runs cmd to its end in a new terminal of the editor:
	// until it exits, ctx ends or cmd.Timeout passes (both kill it). The
	// terminal is released before it returns. An error means the command
	// did not start there.
	RunCommand(ctx context.Context, cmd TerminalCommand) (TerminalOutcome, error)
}

// TerminalCommand is a bash command for the editor's terminal.
type TerminalCommand struct {
	CallID  string // the model's call id: the editor shows the terminal in this call
	Command string // run as bash -c Command
	Dir     string
	Env     map[string]string
	// OutputLimit is how many bytes of output the editor keeps (the last).
	OutputLimit int
	Timeout     time.Duration
}

// TerminalOutcome is how a command in the editor's terminal ended.
type TerminalOutcome struct {
	Output    string
	Truncated bool // the editor dropped the output's beginning
	ExitCode  int
	Signal    string
	TimedOut  bool
	Cancelled bool
}

// runInTerminal runs a foreground bash in the editor's terminal; ok is
// false when there is none to run it in (then nothing ran).
func runInTerminal(ctx context.Context, env *Env, call Call, command string, timeout time.Duration, title, note string) (Result, bool) {
	term, ok := env.Editor.(Terminals)
	if !ok || term == nil || sandboxed(env) {
		return Result{}, false
	}
	lim := env.limits()
	start := time.Now()
	o, err := term.RunCommand(ctx, TerminalCommand{CallID: call.ID, Command: command, Dir: env.Dir, Env: terminalEnv(env.Secrets),
		OutputLimit: int(min(lim.SavedOutputMaxBytes, terminalOutputMax)), Timeout: timeout})
	if err != nil {
		return Result{}, false
	}
	capture := newOutputCapture(lim.BashMaxOutputChars, lim.BashMaxOutputChars, func() (*os.File, error) {
		return env.saver().Create(call.ID)
	}).withFileMax(lim.SavedOutputMaxBytes)
	if o.Truncated {
		note += "[the editor's terminal kept only the end of the output]\n"
	}
	readOutput(strings.NewReader(o.Output), capture, env.Secrets)
	saved := capture.closeFile()
	out := outcome{exitCode: o.ExitCode, signal: o.Signal, timedOut: o.TimedOut, cancelled: o.Cancelled,
		capped: capture.isCapped(), duration: time.Since(start)}
	if o.Signal != "" && o.ExitCode == 0 {
		out.exitCode = -1
	}
	res := bashResult(env, call, title, capture, out, saved, timeout, note)
	res.Metadata["terminal"] = true
	return res, true
}

// terminalEnv is what the editor's terminal sets for a command: the
// agent's secret variables emptied, the pagers off.
func terminalEnv(values []string) map[string]string {
	envs := map[string]string{"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
	for _, n := range secrets.Names {
		envs[n] = ""
	}
	kept := map[string]bool{}
	for _, kv := range secrets.Environ(nil, nil, values...) {
		name, _, _ := strings.Cut(kv, "=")
		kept[name] = true
	}
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !kept[name] {
			envs[name] = ""
		}
	}
	return envs
}
