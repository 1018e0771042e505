// Package gitcmd runs the git commands the agent runs for itself (the
// status in the system prompt, later snapshots), never the model's: those
// go through the bash tool and its permissions.
//
// The contract: a repository cannot make these commands execute anything,
// cannot see the agent's secrets, and is left byte-identical. A cloned
// repository, or a model that wrote .git/config, controls the repository's
// configuration, and git runs commands named there: core.fsmonitor on every
// status, clean filters (filter.<driver>.clean and .process, chosen by
// .gitattributes) whenever status hashes a stat-dirty file again, the
// post-index-change hook when the index is rewritten, submodule summaries
// and child gits in submodules (with their own configuration). So every
// command here runs as
//
//	git --no-optional-locks -c core.fsmonitor=false -c core.hooksPath=/dev/null
//	    -c core.pager=cat -c diff.external= … ARGS
//
// with every configured filter driver emptied (an empty clean, smudge and
// process runs nothing; required=false keeps git from failing on it): the
// drivers' names are read first — from the configuration files
// themselves when nothing makes that uncertain (configfile.go: a .git
// directory, no includes), else with `git config --get-regexp`, which
// executes nothing — and passed through GIT_CONFIG_COUNT, which takes any
// name verbatim. Command-line configuration outranks every file, so the
// repository cannot take it back. --no-optional-locks keeps status from
// refreshing and rewriting .git/index (and so from running the
// post-index-change hook). The environment is an allowlist (PATH, HOME,
// XDG_CONFIG_HOME, the locale, TMPDIR) run through secrets.Environ, plus
// GIT_CONFIG_NOSYSTEM=1, GIT_TERMINAL_PROMPT=0 and GIT_PAGER=cat: no key,
// no GIT_DIR or GIT_EXTERNAL_DIFF from the caller, no askpass or editor.
//
// The user's global configuration (~/.gitconfig) is still read, for
// excludes and status defaults, but its commands are neutralised like the
// repository's: an LFS file that is stat-dirty may then show as modified,
// which is the price of running nothing. Arguments must keep to that too:
// callers pass read-only commands (status, rev-parse), and status with
// --ignore-submodules=dirty so that no child git starts in a submodule.
//
// Output is for the user's repository and reads only. Private (private.go)
// is the other entry point: commands that write, but only to a repository
// the agent owns (the snapshot store), with the same hardening.
package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/ctxloop/agent/internal/secrets"
)

// hardening is the configuration given on the command line of every
// command: it outranks the system, global and repository files.
var hardening = []string{
	"--no-optional-locks",
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.pager=cat",
	"-c", "core.untrackedCache=false",
	"-c", "core.sshCommand=",
	"-c", "core.askPass=",
	"-c", "core.editor=true",
	"-c", "credential.helper=",
	"-c", "diff.external=",
	"-c", "diff.ignoreSubmodules=dirty",
	"-c", "status.submoduleSummary=false",
	"-c", "submodule.recurse=false",
	"-c", "gpg.program=false",
	"-c", "protocol.allow=never",
}

// keptEnv are the variables of the caller's environment git may see.
var keptEnv = map[string]bool{
	"PATH": true, "HOME": true, "XDG_CONFIG_HOME": true, "TMPDIR": true, "TZ": true,
	"LANG": true, "LANGUAGE": true,
}

// Output runs git with args in dir, hardened as the package comment says,
// and returns its standard output. A failure includes the first line of
// git's standard error.
func Output(ctx context.Context, dir string, args ...string) ([]byte, error) {
	env := environ(os.Environ())
	names, known, err := filterKeys(ctx, dir, env) // configfile.go
	if err != nil {
		return nil, fmt.Errorf("git %s in %s: %w", strings.Join(args, " "), dir, err)
	}
	if !known {
		if out, err := run(ctx, dir, env, "config", "--name-only", "--get-regexp", `^filter\.`); err == nil {
			names = string(out)
		}
	}
	env = append(env, configEnv(filterOverrides(names))...)
	return run(ctx, dir, env, args...)
}

func run(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append(append([]string{}, hardening...), args...)...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
			if line != "" {
				err = fmt.Errorf("%w: %s", err, line)
			}
		}
		return out, fmt.Errorf("git %s in %s: %w", strings.Join(args, " "), dir, err)
	}
	return out, nil
}

// environ keeps the allowlisted variables of env (the locale's LC_* too),
// drops the agent's secrets, and adds the variables that keep git
// non-interactive and blind to the system configuration.
func environ(env []string) []string {
	kept := make([]string, 0, 16)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if keptEnv[name] || strings.HasPrefix(name, "LC_") {
			kept = append(kept, kv)
		}
	}
	kept = secrets.Environ(kept, nil)
	return append(kept,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_PAGER=cat",
		"GIT_OPTIONAL_LOCKS=0",
	)
}

// filterOverrides returns, for each filter driver named in names (the
// output of `git config --name-only --get-regexp ^filter\.`), the settings
// that make it run nothing, in the order the drivers first appear.
func filterOverrides(names string) [][2]string {
	var out [][2]string
	seen := map[string]bool{}
	for _, name := range strings.Split(names, "\n") {
		name = strings.TrimSpace(name)
		rest, ok := strings.CutPrefix(name, "filter.")
		// The driver may be named "" (filter..clean, chosen by a bare
		// `filter=` attribute): it runs like any other.
		i := strings.LastIndexByte(rest, '.')
		if !ok || i < 0 {
			continue
		}
		driver := rest[:i]
		if seen[driver] {
			continue
		}
		seen[driver] = true
		for _, kv := range [][2]string{{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}} {
			out = append(out, [2]string{"filter." + driver + "." + kv[0], kv[1]})
		}
	}
	return out
}

// configEnv passes settings through GIT_CONFIG_COUNT, which, unlike -c,
// takes a key with any characters in it.
func configEnv(settings [][2]string) []string {
	if len(settings) == 0 {
		return nil
	}
	env := []string{"GIT_CONFIG_COUNT=" + strconv.Itoa(len(settings))}
	for i, kv := range settings {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+kv[0], "GIT_CONFIG_VALUE_"+n+"="+kv[1])
	}
	return env
}
