// Package sandbox confines the processes the agent runs for the model
// (bash today) with the operating system's means, so that what a command
// can touch no longer depends on the user reading it first.
//
// The contract:
//
//   - Modes: ModeOff runs commands as before; ModeReadOnly lets a command
//     read the file system but write nowhere (except a private temp
//     directory); ModeWorkspaceWrite also lets it write the workspace
//     (the session's directory) — but never its .git, .agent or the files
//     there that run as code (protectedNames), nor the agent's data
//     directory — and Policy.Writable.
//   - Whatever the mode, a sandboxed command runs in new PID and IPC
//     namespaces (the agent's process, and its /proc/PID/environ, do not
//     exist there), with every capability dropped, and without network
//     (a new network namespace with only loopback) unless Policy.Network
//     is NetworkAllow; with Policy.Hosts, only those hosts, through the
//     agent's proxy (proxy.go, relay.go).
//   - Each command gets a fresh temp directory, writable, named by TMPDIR,
//     removed when the command is done (Wrap's cleanup).
//   - Linux: bubblewrap (bwrap from the system's directories, never from
//     the workspace). Probe reports once why no sandbox can run here (no
//     bwrap, namespaces refused, another OS); the caller then says so and
//     falls back to its permission prompts, or, when the user asked for a
//     sandbox explicitly, refuses to run. macOS: sandbox-exec with a
//     generated Seatbelt profile (seatbelt.go, platform_darwin.go).
//   - Announcement: once per data directory, that a sandbox could run.
//   - Explain reads a failed command's output for what the sandbox denied
//     (a write to a path, a process, a host) and says so for the model,
//     with how the user can allow it.
//
// Why bubblewrap rather than Landlock: Landlock restricts paths and (ABI 4)
// TCP ports, but it applies to the calling process, so a Go program must
// re-execute itself as a helper before every command; and it cannot give
// the command a new PID namespace, which is what hides the agent's
// /proc/PID/environ (a Landlock-confined `cat /proc/$PPID/environ` still
// reads its parent's). Measured on this 2-core machine under load, p50 of
// `bash -c true`: plain 1.4 ms, a go-landlock v0.11.1 re-exec helper
// 4.2–4.6 ms, bwrap with these namespaces 5.8–8.0 ms (BenchmarkBashSandbox
// in internal/tools: +6.5–7.8 ms over off through the bash tool). bwrap's
// few more milliseconds buy the PID, IPC and network namespaces, in one
// exec, with no helper; it is what codex and Claude Code use on Linux.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Mode is how much a sandboxed command may write.
type Mode string

// The sandbox modes (config sandbox.mode, agent run --sandbox, /sandbox).
const (
	ModeOff            Mode = "off"
	ModeReadOnly       Mode = "read-only"
	ModeWorkspaceWrite Mode = "workspace-write"
)

// Network settings (config sandbox.network).
const (
	NetworkOff   = "off"
	NetworkAllow = "allow"
)

// ParseMode checks a mode as the user typed it.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.TrimSpace(s)); m {
	case ModeOff, ModeReadOnly, ModeWorkspaceWrite:
		return m, nil
	}
	return "", fmt.Errorf("sandbox mode %q: want off, read-only or workspace-write", s)
}

// Policy is what a sandboxed command may do.
type Policy struct {
	Mode Mode
	// Network is NetworkAllow to keep the host's network; anything else
	// cuts it, but for Hosts.
	Network string
	// Hosts, when the network is cut, are the hosts a command may still
	// reach through the agent's proxy (proxy.go; config sandbox.network
	// as a list).
	Hosts []string
	// Workspace is the session's directory (absolute): writable in
	// ModeWorkspaceWrite, except .git and .agent in it.
	Workspace string
	// ReadOnly are directories kept read-only even inside a writable one
	// (the agent's data directory).
	ReadOnly []string
	// Writable are further directories the user lets commands write
	// (config sandbox.writable, e.g. a build cache), in ModeWorkspaceWrite.
	Writable []string
}

// protectedNames are the workspace's entries that stay read-only when
// they exist: git's hooks and config run code, .agent holds the project's
// config and hooks, and the rest run as code on the user's next action
// (the write tool always asks for them: internal/tools/codepaths.go). One
// that does not exist yet cannot be mounted over and is not protected.
var protectedNames = []string{".git", ".agent", ".githooks", ".husky", ".envrc", ".vscode", ".devcontainer"}

// Probe reports why no sandbox can run here, or nil. It runs bwrap once
// (a few milliseconds) and remembers the answer for the process.
func Probe() error { return probe() }

var probe = sync.OnceValue(platformProbe)

// bwrapProbe is Linux's probe: bwrap found, and its namespaces allowed.
func bwrapProbe() error {
	bwrap, err := findBwrap()
	if err != nil {
		return err
	}
	cmd := exec.Command(bwrap, append(baseArgs(false), "--", "/bin/true")...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("bubblewrap (%s) cannot create the sandbox's namespaces here (user namespaces disabled?): %s", bwrap, msg)
	}
	return nil
}

// findBwrap looks for bwrap in the system's directories only: a bwrap in
// the workspace or on a PATH the repository controls is not to be trusted.
func findBwrap() (string, error) {
	if err := platformSupported(); err != nil {
		return "", err
	}
	for _, dir := range []string{"/usr/bin", "/bin", "/usr/local/bin", "/usr/sbin"} {
		p := filepath.Join(dir, "bwrap")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New("bubblewrap (bwrap) is not installed in /usr/bin: install it (apt-get install bubblewrap, dnf install bubblewrap)")
}

// baseArgs are the namespaces and mounts every sandboxed command gets.
func baseArgs(network bool) []string {
	a := []string{
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc", // the new PID namespace's: no process of the host is visible
		"--unshare-pid", "--unshare-ipc",
		"--die-with-parent",
		"--cap-drop", "ALL", // root inside must not remount / read-write
		"--as-pid-1", // the command is PID 1: $PPID is 0, nothing above it
	}
	if !network {
		a = append(a, "--unshare-net")
	}
	return a
}

// Wrap rewrites cmd (not started yet) to run under the sandbox policy p:
// cmd.Path becomes bwrap and cmd.Args its arguments followed by the
// original command; cmd.Dir, cmd.Env (TMPDIR added) and cmd.SysProcAttr
// stay the caller's. cleanup removes the command's temp directory: call it
// once the command has exited. With p.Mode off, Wrap changes nothing.
func Wrap(cmd *exec.Cmd, p Policy) (cleanup func(), err error) {
	if p.Mode == ModeOff || p.Mode == "" {
		return func() {}, nil
	}
	if err := Probe(); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "agent-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: temp directory: %w", err)
	}
	cleanup = func() { os.RemoveAll(tmp) }
	prog, args, err := platformCommand(p, tmp, cmd.Dir) // bwrap's arguments and "--", or sandbox-exec's
	if err != nil {
		cleanup()
		return nil, err
	}
	if p.Network != NetworkAllow && len(p.Hosts) > 0 {
		stop, relayArgs, err := startAllowList(p.Hosts, tmp)
		if err != nil {
			cleanup()
			return nil, err
		}
		cleanup = func() { stop(); os.RemoveAll(tmp) }
		args = append(args, relayArgs...) // the command runs under the relay
	}
	args = append(args, cmd.Args...)
	if len(cmd.Args) > 0 && cmd.Path != "" && filepath.IsAbs(cmd.Path) {
		args[len(args)-len(cmd.Args)] = cmd.Path // the resolved program, as exec would run it
	}
	cmd.Path = prog
	cmd.Args = append([]string{prog}, args...)
	cmd.Err = nil // exec.Command's lookup error no longer applies
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(withoutVar(env, "TMPDIR"), "TMPDIR="+tmp)
	return cleanup, nil
}

// Args are bwrap's arguments for policy p, with tmp as the command's temp
// directory and dir its working directory. Later mounts override earlier
// ones: the root read-only, then what is writable, then the read-only
// exceptions inside it.
func Args(p Policy, tmp, dir string) []string {
	a := baseArgs(p.Network == NetworkAllow)
	bind := func(flag, path string) {
		if path == "" {
			return
		}
		if _, err := os.Stat(path); err != nil {
			return // bwrap fails on a missing source
		}
		a = append(a, flag, path, path)
	}
	if p.Mode == ModeWorkspaceWrite {
		bind("--bind", p.Workspace)
		for _, w := range p.Writable {
			bind("--bind", w)
		}
		for _, name := range protectedNames {
			bind("--ro-bind", filepath.Join(p.Workspace, name))
		}
	}
	for _, r := range p.ReadOnly {
		bind("--ro-bind", r)
	}
	bind("--bind", tmp)
	if dir != "" {
		a = append(a, "--chdir", dir)
	}
	return a
}

func withoutVar(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
