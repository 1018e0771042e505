package sandbox

// macOS: the Seatbelt profile (SBPL) sandbox-exec runs a command under.
// A pure function, so that the profile is tested on every system
// (TestSeatbeltProfileGolden); platform_darwin.go runs it. The profile:
// deny by default; allow running programs and reading the whole file
// system; allow writes to the workspace (ModeWorkspaceWrite), the
// directories in Writable and the command's temp dir, then deny them again
// under the protected names and the agent's data directory (in SBPL a
// later rule wins); the network only with NetworkAllow.

import (
	"fmt"
	"path/filepath"
	"strings"
)

// seatbeltBase lets an ordinary program start and run: processes, reads,
// the terminal and the devices every shell touches.
const seatbeltBase = `(version 1)
(deny default)
(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow file-read*)
(allow sysctl-read)
(allow mach-lookup)
(allow ipc-posix-shm)
(allow pseudo-tty)
(allow file-ioctl)
(allow file-write-data
  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper")
  (regex #"^/dev/tty") (regex #"^/dev/fd/"))
`

// SeatbeltProfile is the profile for policy p, with tmp the command's
// temp directory. Paths are used as given: the caller resolves symlinks
// (on macOS /tmp and /var are links into /private, and Seatbelt matches
// the resolved path).
func SeatbeltProfile(p Policy, tmp string) string {
	var b strings.Builder
	b.WriteString(seatbeltBase)
	var writable []string
	if p.Mode == ModeWorkspaceWrite {
		writable = append(writable, p.Workspace)
		writable = append(writable, p.Writable...)
	}
	writable = append(writable, tmp)
	b.WriteString("(allow file-write*")
	for _, w := range writable {
		if w != "" {
			fmt.Fprintf(&b, "\n  (subpath %s)", sbplString(w))
		}
	}
	b.WriteString(")\n")
	var protected []string
	if p.Mode == ModeWorkspaceWrite && p.Workspace != "" {
		for _, name := range protectedNames {
			protected = append(protected, filepath.Join(p.Workspace, name))
		}
	}
	protected = append(protected, p.ReadOnly...)
	if len(protected) > 0 {
		b.WriteString("(deny file-write*")
		for _, r := range protected {
			fmt.Fprintf(&b, "\n  (subpath %s)", sbplString(r))
		}
		b.WriteString(")\n")
	}
	if p.Network == NetworkAllow {
		b.WriteString("(allow network*)\n")
	} else {
		b.WriteString("; network: denied (deny default)\n")
	}
	return b.String()
}

// sbplString quotes s as an SBPL string literal.
func sbplString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
