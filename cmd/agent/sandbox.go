package main

// The session's OS sandbox (internal/sandbox): the config's sandbox, or
// agent run's --sandbox over it. A sandbox the config asks for and this
// machine cannot give is said once (a warning: stderr headless, a notice in
// the chat) and commands fall back to the permission prompts; one asked
// for with --sandbox is never silently dropped: the run exits 2 naming the
// cause before anything runs.

import (
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/sandbox"
)

// setupSandbox sets a.sandbox from the config and flag (--sandbox, "" when
// not given); warning, when not empty, says the config's sandbox cannot
// run here, for the caller to show once. The agent's data directory stays
// read-only inside.
func (a *app) setupSandbox(flag string) (warning string, err error) {
	sc := a.cfg.Sandbox
	mode := sandbox.Mode(sc.Mode)
	if mode == "" {
		mode = sandbox.ModeOff
	}
	if flag != "" {
		m, err := sandbox.ParseMode(flag)
		if err != nil {
			return "", usageError("--sandbox: %v", err)
		}
		mode = m
	}
	p := sandbox.Policy{Mode: mode, Network: sc.Network, Hosts: sc.Hosts, Writable: sc.Writable, ReadOnly: []string{a.cfg.DataDir}}
	if mode != sandbox.ModeOff {
		if err := sandbox.Probe(); err != nil {
			if flag != "" {
				return "", usageError("--sandbox %s: no sandbox on this machine: %v", mode, err)
			}
			warning = "sandbox " + string(mode) + " is not available, so commands run unconfined and ask for permission as before: " + err.Error()
			p.Mode = sandbox.ModeOff
		}
	}
	a.sandbox = sandbox.NewSetting(p)
	return warning, nil
}

// sandboxAnnouncement is the once-per-machine note that a sandbox could
// run here (sandbox.Announcement), when the user config leaves sandbox
// unset and no --sandbox (flag) was given; "" otherwise.
func sandboxAnnouncement(sc config.Sandbox, dataDir, flag string) string {
	if sc.Mode != "" || flag != "" {
		return ""
	}
	return sandbox.Announcement(dataDir)
}
