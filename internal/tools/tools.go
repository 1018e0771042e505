// Package tools is the agent's hands: the tools offered to the model (bash,
// read, write, edit, grep, glob, ls), the registry that validates and runs a
// call, and the permissions checked before a call runs.
//
// Every result passes through Registry.Run, which sanitises the output for the
// model (no terminal escapes, valid UTF-8) and caps it with the shared
// truncation (internal/context/truncate); the full output is saved under
// Env.OutputDir and the model is told where. Tools that know better truncate
// first on their own terms (bash keeps head and tail, read stops at a line
// and says which offset continues). Permissions are separate: the loop calls
// Permissions.Check, then Registry.Run (or Registry.RunChecked does both).
// A write or edit of a file that runs as code (a git hook, .envrc, editor
// tasks...) always asks, whatever the tool's mode: codepaths.go.
package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ctxloop/agent/internal/context/truncate"
	"github.com/ctxloop/agent/internal/jobs"
	"github.com/ctxloop/agent/internal/sandbox"
)

// Limits bounds what tools run and return. Zero values mean the defaults
// (see DefaultLimits).
type Limits struct {
	BashMaxOutputChars int           // bash output kept for the model, head and tail (bytes of UTF-8; default 30000)
	BashTimeout        time.Duration // default timeout of a command (120 s)
	BashMaxTimeout     time.Duration // the most a call may ask for with timeout_s (600 s)
	ReadMaxLines       int           // lines read returns at most (2000)
	ReadMaxLineLength  int           // characters of a line read shows (2000)
	MaxResultLines     int           // the shared cap on any result (2000 lines)
	MaxResultBytes     int           // the shared cap on any result (50 KB)
	GrepMaxMatches     int           // matching lines grep shows (100)
	GlobMaxResults     int           // paths glob shows (100)
	// SavedOutputMaxBytes caps one saved full output (64 MB): bash keeps
	// its head and tail and stops the command past it. It is at least
	// twice BashMaxOutputChars, so the model's view always fits.
	SavedOutputMaxBytes int64
	// OutputsMaxTotalBytes bounds all saved outputs together (1 GB): the
	// oldest are removed to make room for a new one.
	OutputsMaxTotalBytes int64
}

// DefaultLimits returns the limits used for zero fields of Limits.
func DefaultLimits() Limits {
	return Limits{
		BashMaxOutputChars: 30000,
		BashTimeout:        120 * time.Second,
		BashMaxTimeout:     600 * time.Second,
		ReadMaxLines:       2000,
		ReadMaxLineLength:  2000,
		MaxResultLines:     truncate.DefaultMaxLines,
		MaxResultBytes:     truncate.DefaultMaxBytes,
		GrepMaxMatches:     100,
		GlobMaxResults:     100,

		SavedOutputMaxBytes:  64 << 20,
		OutputsMaxTotalBytes: 1 << 30,
	}
}

// withDefaults returns l with zero (or negative) fields set to the defaults.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	pick := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	pickD := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	l.BashMaxOutputChars = pick(l.BashMaxOutputChars, d.BashMaxOutputChars)
	l.BashTimeout = pickD(l.BashTimeout, d.BashTimeout)
	l.BashMaxTimeout = pickD(l.BashMaxTimeout, d.BashMaxTimeout)
	if l.BashMaxTimeout < l.BashTimeout {
		l.BashMaxTimeout = l.BashTimeout
	}
	l.ReadMaxLines = pick(l.ReadMaxLines, d.ReadMaxLines)
	l.ReadMaxLineLength = pick(l.ReadMaxLineLength, d.ReadMaxLineLength)
	l.MaxResultLines = pick(l.MaxResultLines, d.MaxResultLines)
	l.MaxResultBytes = pick(l.MaxResultBytes, d.MaxResultBytes)
	l.GrepMaxMatches = pick(l.GrepMaxMatches, d.GrepMaxMatches)
	l.GlobMaxResults = pick(l.GlobMaxResults, d.GlobMaxResults)
	if l.SavedOutputMaxBytes <= 0 {
		l.SavedOutputMaxBytes = d.SavedOutputMaxBytes
	}
	l.SavedOutputMaxBytes = max(l.SavedOutputMaxBytes, 2*int64(l.BashMaxOutputChars))
	if l.OutputsMaxTotalBytes <= 0 {
		l.OutputsMaxTotalBytes = d.OutputsMaxTotalBytes
	}
	return l
}

// Env is what a tool call runs in. One Env serves a whole session.
type Env struct {
	Dir       string       // the session's directory (absolute); relative paths resolve against it
	OutputDir string       // where full outputs are saved (e.g. <data>/outputs); created 0700, files 0600; empty: not saved
	Limits    Limits       // zero fields mean the defaults
	Files     *FileTracker // when the agent last read each file, for staleness checks; nil disables the checks
	// Secrets are the agent's secret values (the API key): variables
	// holding them are left out of tool processes' environments, and every
	// occurrence in a result or a saved output becomes secrets.Placeholder.
	// Never serialise an Env.
	Secrets []string
	// AskFrom names who makes the calls when it is not the session's own
	// model (`the subagent "…"`): the permission dialog says so.
	AskFrom string
	// CodeFiles are files, besides the fixed ones of codepaths.go, that
	// run as code: what the configured hooks run (hooks.Runner.Files).
	// A write or edit to one always asks.
	CodeFiles []string
	// Jobs are the session's background processes (bash with background:
	// true, bash_output, bash_kill); nil: bash cannot start one.
	Jobs *jobs.Table
	// Groups records a background process's group while it runs, so the
	// next start stops what a killed agent left (childproc.Registry); nil:
	// not recorded.
	Groups GroupRecorder
	// Sandbox is the session's OS sandbox for bash (sandboxed.go); nil
	// runs commands unconfined.
	Sandbox *sandbox.Setting
	// AskOutside asks the user whether a command the sandbox denied may
	// run outside it once (sandboxed.go); nil when nobody can be asked.
	AskOutside func(ctx context.Context, req Request) bool
	// Edits watches what write and edit change (editwatch.go: the
	// language servers' diagnostics); nil watches nothing.
	Edits EditObserver
	// Editor, when set, is the editor whose buffers read and edit see and
	// whose buffers write and edit update (editor.go); nil: the disk only.
	Editor Editor
}

func (e *Env) limits() Limits { return e.Limits.withDefaults() }

func (e *Env) saver() truncate.Saver {
	lim := e.limits()
	return truncate.Saver{Dir: e.OutputDir, MaxTotalBytes: lim.OutputsMaxTotalBytes, MaxFileBytes: lim.SavedOutputMaxBytes}
}

// Call is one tool call requested by the model.
type Call struct {
	ID       string
	Name     string
	Input    json.RawMessage
	Progress func(lastLines string) // may be nil; bash reports its last lines while it runs (at most 10 a second, from another goroutine)
	// Started, when set, is called once by a tool that starts a process
	// group (bash), as soon as it runs, so the caller can record it and
	// stop it after a crash (see StopProcessGroup).
	Started func(ProcessGroup)
}

// Result is what a tool call produced.
type Result struct {
	Output         string         // for the model: sanitised and truncated
	RawOutput      string         // the original output, for the record, only when it differs from Output and is at most 50 KB
	Title          string         // short, for the TUI card: "bash: go test ./...", "read internal/x.go"
	Metadata       map[string]any // lines, exit_code, duration_ms, matches, diff (unified, for edit and write)...
	IsError        bool
	Truncated      bool
	FullOutputPath string  // the saved full output when Truncated (empty if it could not be saved)
	Images         []Image // images for the model (images.go), each described in Output too
}

// MaxRawOutputBytes is the largest RawOutput kept in a Result.
const MaxRawOutputBytes = 50 * 1024

// Tool is one capability offered to the model.
type Tool interface {
	Name() string
	// Description is written for the model: when to use the tool, its
	// limits and how to read more.
	Description() string
	// Parameters is a JSON schema object; Registry.Run validates input
	// against it before Run is called.
	Parameters() json.RawMessage
	// ReadOnly tools (read, grep, glob, ls) change nothing and may run
	// concurrently.
	ReadOnly() bool
	// Run performs the call. The error is for internal failures only; a
	// failure the model should read is a Result with IsError set.
	Run(ctx context.Context, env *Env, call Call) (Result, error)
}

// errorResult is a failure the model reads.
func errorResult(title, format string, args ...any) Result {
	return Result{Output: sprintf(format, args...), Title: title, IsError: true}
}
