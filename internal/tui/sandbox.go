package tui

// /sandbox [mode]: the OS sandbox of the chat's commands (internal/sandbox).
// Without an argument it tells the mode in force and what it allows; with
// one (off, read-only, workspace-write) it switches from the next command
// on (the loop's sandbox.Setting, shared with the open session, its
// subagents and the next sessions), or, where no sandbox runs, refuses
// with the cause and leaves things as they were.

import (
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/sandbox"
)

// sandboxNotice runs /sandbox arg on s and says what it did.
func sandboxNotice(s *sandbox.Setting, arg string) *noticeItem {
	if arg == "" {
		p := s.Policy()
		if p.Mode == sandbox.ModeOff {
			why := ""
			if err := sandbox.Probe(); err != nil {
				why = " (none on this machine: " + err.Error() + ")"
			}
			return &noticeItem{kind: noticeInfo, text: "sandbox off: commands run with your rights and ask first" + why + "; /sandbox workspace-write or read-only confines them"}
		}
		return &noticeItem{kind: noticeInfo, text: fmt.Sprintf("sandbox %s: %s; network %s (/sandbox off turns it off)", p.Mode, sandboxAllows(p.Mode), networkWord(p))}
	}
	mode, err := sandbox.ParseMode(arg)
	if err != nil {
		return &noticeItem{kind: noticeError, text: "/sandbox: " + err.Error()}
	}
	if s == nil {
		return &noticeItem{kind: noticeError, text: "/sandbox: this chat cannot change the sandbox"}
	}
	if mode != sandbox.ModeOff {
		if err := sandbox.Probe(); err != nil {
			return &noticeItem{kind: noticeError, text: "/sandbox " + arg + ": no sandbox on this machine: " + err.Error()}
		}
	}
	s.SetMode(mode)
	if mode == sandbox.ModeOff {
		return &noticeItem{kind: noticeWarn, text: "sandbox off from the next command: commands run with your rights and ask first"}
	}
	return &noticeItem{kind: noticeInfo, text: fmt.Sprintf("sandbox %s from the next command: %s; commands in it run without asking", mode, sandboxAllows(mode))}
}

func sandboxAllows(m sandbox.Mode) string {
	if m == sandbox.ModeReadOnly {
		return "commands read everything and write only a private temp directory"
	}
	return "commands write the workspace (not .git or .agent) and a private temp directory, and read everything else"
}

func networkWord(p sandbox.Policy) string {
	if p.Network == sandbox.NetworkAllow {
		return "allowed"
	}
	if len(p.Hosts) > 0 {
		return "only to " + strings.Join(p.Hosts, ", ") + " (through the agent's proxy)"
	}
	return "off"
}
