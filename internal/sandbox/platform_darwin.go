//go:build darwin

package sandbox

// macOS: sandbox-exec (from /usr/bin only) with the profile SeatbeltProfile
// generates per command. What differs from Linux: other processes stay
// visible (no PID namespace), and a list of hosts is refused (the relay
// needs a network namespace; a proxy on a loopback port the profile
// allows is the way, not built yet).

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const sandboxExec = "/usr/bin/sandbox-exec"

func platformSupported() error {
	return errors.New("bubblewrap is Linux's; macOS uses sandbox-exec")
}

func platformProbe() error {
	if fi, err := os.Stat(sandboxExec); err != nil || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("sandbox-exec not found in /usr/bin: macOS's sandbox cannot run here")
	}
	out, err := exec.Command(sandboxExec, "-p", SeatbeltProfile(Policy{Mode: ModeReadOnly}, os.TempDir()), "/usr/bin/true").CombinedOutput()
	if err != nil {
		return fmt.Errorf("sandbox-exec cannot run a command here: %s", strings.TrimSpace(string(out)+" "+err.Error()))
	}
	return nil
}

// platformCommand is sandbox-exec with the profile for p.
func platformCommand(p Policy, tmp, dir string) (prog string, args []string, err error) {
	if p.Network != NetworkAllow && len(p.Hosts) > 0 {
		return "", nil, errors.New("sandbox.network as a list of hosts is not supported on macOS yet: use \"off\" or \"allow\"")
	}
	p.Workspace = resolved(p.Workspace)
	p.Writable = resolvedAll(p.Writable)
	p.ReadOnly = resolvedAll(p.ReadOnly)
	return sandboxExec, []string{"-p", SeatbeltProfile(p, resolved(tmp))}, nil
}

// resolved is path with its symlinks resolved (/tmp is /private/tmp).
func resolved(path string) string {
	if path == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

func resolvedAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = resolved(p)
	}
	return out
}
