package sandbox

// The first-run announcement: where a sandbox can run and the user has
// not chosen a sandbox setting, the agent says once per data directory
// (the first chat or agent run on this machine) that one is available and
// how to turn it on. Once is a marker file in the data directory, created
// with the announcement; a data directory where it cannot be created gets
// no announcement (never one on every run).

import (
	"os"
	"path/filepath"
)

// announcedMarker is the marker's name in the data directory.
const announcedMarker = "sandbox-announced"

// Announcement is the text to show once, or "" (shown before, no sandbox
// here, or no marker can be written). The caller calls it only when the
// user's config leaves sandbox unset and no --sandbox was given.
func Announcement(dataDir string) string {
	if dataDir == "" {
		return ""
	}
	if _, err := os.Lstat(filepath.Join(dataDir, announcedMarker)); err == nil {
		return "" // said before: no probe (a bwrap run) on every start
	}
	if Probe() != nil {
		return ""
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return ""
	}
	f, err := os.OpenFile(filepath.Join(dataDir, announcedMarker), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil { // fs.ErrExist: said before; else no marker, so say nothing
		return ""
	}
	f.WriteString("the OS sandbox was announced here; delete this file to see it again\n")
	f.Close()
	return `an OS sandbox is available on this machine (off until you choose it): in the chat, /sandbox workspace-write; for every session, "sandbox": "workspace-write" in your user config (agent run: --sandbox workspace-write). Commands in it run without asking, confined to the workspace. This note is shown once.`
}
