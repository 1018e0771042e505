package main

// The version shown by --version, the welcome and MCP's client info: the
// one stamped with -ldflags (make build), else what the Go toolchain
// recorded in the binary — the module's version (go install …@v1.2.3) or
// the commit it was built from, "+modified" when the tree had changes —
// else "dev".

import (
	"runtime/debug"
)

func init() { version = resolveVersion(version, debug.ReadBuildInfo) }

// resolveVersion is stamped unless that is the default "dev", then the
// build info's module version or VCS revision.
func resolveVersion(stamped string, read func() (*debug.BuildInfo, bool)) string {
	if stamped != "" && stamped != "dev" {
		return stamped
	}
	info, ok := read()
	if !ok || info == nil {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		rev += "+modified"
	}
	return rev
}
