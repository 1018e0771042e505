package hooks

// The decisions: which hooks an event selects, what one hook's exit code
// and output mean, and what several hooks decide together. Pure functions
// over strings; no process here.

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/secrets"
	"github.com/ctxloop/agent/internal/tools"
)

// matcher selects hooks by a name of the event (see the package comment).
type matcher struct {
	all   bool
	exact []string
	re    *regexp.Regexp
}

// exactMatcher is a matcher Claude Code compares as exact names.
var exactMatcher = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_|]+$`) })

func compileMatcher(s string) (matcher, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "*":
		return matcher{all: true}, nil
	case exactMatcher().MatchString(s):
		var names []string
		for _, n := range strings.Split(s, "|") {
			if n != "" {
				names = append(names, n)
			}
		}
		return matcher{exact: names}, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return matcher{}, err
	}
	return matcher{re: re}, nil
}

// match reports whether the matcher selects any of names. No names (an
// event without matching) selects every hook.
func (m matcher) match(names []string) bool {
	if m.all || len(names) == 0 {
		return true
	}
	for _, n := range names {
		if m.re != nil && m.re.MatchString(n) {
			return true
		}
		for _, e := range m.exact {
			if e == n {
				return true
			}
		}
	}
	return false
}

// matchNames are the names ev's matchers are tested against: the tool's
// two names, the trigger, the source; none for the other events.
func matchNames(ev Event) []string {
	switch ev.Name {
	case PreToolUse, PostToolUse:
		if cc := ClaudeToolName(ev.Tool); cc != ev.Tool {
			return []string{ev.Tool, cc}
		}
		return []string{ev.Tool}
	case PreCompact, PostCompact:
		return []string{ev.Trigger}
	case SessionStart:
		return []string{ev.Source}
	}
	return nil
}

// execResult is how one hook's process ended.
type execResult struct {
	exitCode int // -1: did not exit by itself
	stdout   string
	stderr   string
	timedOut bool
	timeout  string // the timeout, for the message
	err      error  // failed to start, timed out, cancelled
	duration time.Duration
}

// verdict is what one hook decided.
type verdict struct {
	block            bool
	reason           string
	permission       string
	permissionReason string
	context          string
	stop             bool
	stopReason       string
	run              Run
}

// output is the JSON a hook may print on exit 0.
type output struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	SuppressOutput bool   `json:"suppressOutput"`
	SystemMessage  string `json:"systemMessage"`
	Decision       string `json:"decision"`
	Reason         string `json:"reason"`
	Specific       *struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// blockable reports whether exit 2 blocks the event.
func blockable(event string) bool {
	switch event {
	case SessionStart, PostCompact:
		return false
	}
	return true
}

// contextFromStdout reports whether an event's plain stdout is context
// for the model rather than a line for the user.
func contextFromStdout(event string) bool {
	return event == UserPromptSubmit || event == SessionStart
}

// interpret reads one hook's exit code and output (already cleaned).
func interpret(event, command string, res execResult) verdict {
	v := verdict{run: Run{Event: event, Command: command, ExitCode: res.exitCode, TimedOut: res.timedOut, Duration: res.duration}}
	stdout, stderr := strings.TrimSpace(res.stdout), strings.TrimSpace(res.stderr)
	switch {
	case res.err != nil || res.exitCode < 0:
		v.run.Error = errorText(res)
		v.run.Output = stderr
	case res.exitCode == 2:
		reason := stderr
		if reason == "" {
			reason = fmt.Sprintf("blocked by the hook %q (exit 2, nothing on stderr)", command)
		}
		if blockable(event) {
			v.block, v.reason = true, reason
			v.run.Blocked = true
			if event == PreToolUse {
				v.permission = Deny
			}
		} else {
			v.run.Error = "exit status 2 (this event cannot be blocked)"
		}
		v.run.Output = reason
	case res.exitCode != 0:
		v.run.Error = fmt.Sprintf("exit status %d", res.exitCode)
		v.run.Output = stderr
	default:
		if out, ok := parseOutput(stdout); ok {
			v.applyJSON(event, out)
			break
		}
		if contextFromStdout(event) {
			v.context = stdout
		}
		v.run.Output = stdout
	}
	return v
}

// parseOutput reads stdout as a hook's JSON output when it is one JSON
// object.
func parseOutput(stdout string) (output, bool) {
	var out output
	if !strings.HasPrefix(stdout, "{") {
		return out, false
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		return out, false
	}
	return out, true
}

func (v *verdict) applyJSON(event string, out output) {
	var shown []string
	if out.SystemMessage != "" {
		shown = append(shown, out.SystemMessage)
	}
	if out.Continue != nil && !*out.Continue {
		v.stop = true
		v.stopReason = out.StopReason
		if out.StopReason != "" {
			shown = append(shown, out.StopReason)
		}
	}
	switch strings.ToLower(out.Decision) {
	case "block":
		if blockable(event) {
			v.block, v.reason = true, out.Reason
			if event == PreToolUse {
				v.permission = Deny
			}
		}
	case "approve":
		if event == PreToolUse {
			v.permission, v.permissionReason = Allow, out.Reason
		}
	}
	if s := out.Specific; s != nil {
		if event == PreToolUse {
			switch p := strings.ToLower(s.PermissionDecision); p {
			case Allow, Ask:
				if v.permission != Deny {
					v.permission, v.permissionReason = p, s.PermissionDecisionReason
				}
			case Deny:
				v.permission, v.permissionReason = Deny, s.PermissionDecisionReason
				v.block = true
				if v.reason == "" {
					v.reason = s.PermissionDecisionReason
				}
			}
		}
		v.context = s.AdditionalContext
	}
	if v.block {
		if v.reason == "" {
			v.reason = fmt.Sprintf("blocked by the hook %q", v.run.Command)
		}
		v.run.Blocked = true
		shown = append(shown, v.reason)
	}
	v.run.Output = strings.Join(shown, "\n")
}

func errorText(res execResult) string {
	switch {
	case res.timedOut:
		return fmt.Sprintf("timed out after %s; killed", res.timeout)
	case res.err != nil:
		return res.err.Error()
	}
	return "did not exit"
}

// merge combines the verdicts of one event's hooks (see the package
// comment).
func merge(event string, vs []verdict) Outcome {
	var o Outcome
	var reasons, contexts []string
	for _, v := range vs {
		o.Runs = append(o.Runs, v.run)
		if v.block {
			o.Blocked = true
			reasons = append(reasons, v.reason)
		}
		if v.context != "" {
			contexts = append(contexts, v.context)
		}
		if v.stop {
			o.Stop = true
			if o.StopReason == "" {
				o.StopReason = v.stopReason
			}
		}
		if strongerPermission(v.permission, o.Permission) {
			o.Permission = v.permission
			if v.permission != Deny && v.permissionReason != "" {
				o.Reason = v.permissionReason
			}
		}
	}
	if o.Blocked {
		o.Reason = strings.Join(reasons, "\n")
	}
	if event == PreToolUse && o.Blocked {
		o.Permission = Deny
	}
	o.Context = strings.Join(contexts, "\n\n")
	return o
}

// strongerPermission reports whether a overrides b: deny over ask over
// allow over no opinion.
func strongerPermission(a, b string) bool {
	rank := map[string]int{"": 0, Allow: 1, Ask: 2, Deny: 3}
	return rank[a] > rank[b]
}

// clean makes a hook's output safe to store and show: terminal escapes
// and control characters go, secret values are redacted.
func (r *Runner) clean(s string) string {
	if s == "" {
		return s
	}
	return secrets.Redact(tools.Sanitize(s), r.secrets...)
}
