package hooks

// Which configured hooks run. The user file's hooks run. A project file
// comes with a repository someone else wrote, so its hooks run only for
// the events the user approved: an approval (internal/approval, kind
// "hook") names the project file and the event, and holds the digest of
// the event's entries, so an edited entry needs approving again.

import (
	"fmt"
	"github.com/ctxloop/agent/internal/sandbox"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/config"
)

// Approver tells whether the user approved a project file's entry; an
// *approval.Store is one.
type Approver interface {
	Approved(project, kind, name, digest string) bool
}

// Sources of a hook, as listed.
const (
	SourceUser    = "user"
	SourceProject = "project"
)

// Listed is one configured hook as `agent hooks list` shows it.
type Listed struct {
	Event    string  `json:"event"`
	Matcher  string  `json:"matcher"`
	Type     string  `json:"type"`
	Command  string  `json:"command"`
	TimeoutS float64 `json:"timeout_s,omitempty"`
	Source   string  `json:"source"` // SourceUser or SourceProject
	File     string  `json:"file"`
	// Approved is, for a project hook, whether the user approved its
	// event's entries as they are now; a user's hook needs no approval.
	Approved bool `json:"approved"`
	// Runs: the hook runs (approved, and of a kind this agent runs).
	Runs bool `json:"runs"`
	// Known: the event is one hooks fire for.
	Known bool `json:"known_event"`
	// RepositoryFiles are the files inside the project the command runs
	// (RepositoryFiles, set by whoever lists with a directory): a write to
	// one is code execution, so the agent's write and edit of it ask.
	RepositoryFiles []string `json:"repository_files,omitempty"`
}

// Plan is what a configuration's hooks come to.
type Plan struct {
	// Run are the hooks to give New.
	Run []Hook
	// Listed are all configured hooks, the user's first.
	Listed []Listed
	// Unapproved are the project file's events whose hooks do not run
	// for want of approval.
	Unapproved []string
	// Warnings are for the user: hooks left out, and why.
	Warnings []string
}

// ProjectDigest is the digest an approval of a project's event covers:
// its entries as written.
func ProjectDigest(groups []config.HookGroup) string { return approval.Digest(groups) }

// FromConfig plans c's hooks: the user file's, and the project file's
// events ap approved.
func FromConfig(c *config.Config, ap Approver) Plan {
	var p Plan
	p.add(c.Hooks, SourceUser, c.UserFile, func(string) bool { return true })
	if len(c.ProjectHooks) > 0 {
		approved := func(event string) bool {
			return ap != nil && ap.Approved(c.ProjectFile, approval.KindHook, event, ProjectDigest(c.ProjectHooks[event]))
		}
		p.add(c.ProjectHooks, SourceProject, c.ProjectFile, approved)
		if len(p.Unapproved) > 0 {
			p.Warnings = append(p.Warnings, fmt.Sprintf(
				"project file %s declares hooks (%s) that are not approved, so they do not run; review them with `agent hooks list` and approve them with `agent hooks approve`",
				c.ProjectFile, strings.Join(p.Unapproved, ", ")))
		}
	}
	return p
}

func (p *Plan) add(hs config.Hooks, source, file string, approved func(event string) bool) {
	for _, event := range sortedEvents(hs) {
		ok := approved(event)
		if !ok {
			p.Unapproved = append(p.Unapproved, event)
		}
		if !knownEvent(event) {
			p.Warnings = append(p.Warnings, fmt.Sprintf("hooks: %q in %s is not an event hooks fire for (%s); its hooks do not run", event, file, strings.Join(Events, ", ")))
		}
		for _, g := range hs[event] {
			for _, h := range g.Hooks {
				typ := h.Type
				if typ == "" {
					typ = "command"
				}
				l := Listed{Event: event, Matcher: g.Matcher, Type: typ, Command: h.Command, TimeoutS: h.TimeoutS,
					Source: source, File: file, Approved: ok, Known: knownEvent(event)}
				switch {
				case !knownEvent(event):
				case typ != "command":
					p.Warnings = append(p.Warnings, fmt.Sprintf("hooks: a %s hook of type %q in %s is not supported (only \"command\") and does not run", event, typ, file))
				case h.Sandbox != "" && !validSandbox(h.Sandbox):
					p.Warnings = append(p.Warnings, fmt.Sprintf("hooks: a %s hook in %s has sandbox %q (want off, read-only or workspace-write) and does not run", event, file, h.Sandbox))
				case ok:
					l.Runs = true
					p.Run = append(p.Run, Hook{Event: event, Matcher: g.Matcher, Command: h.Command,
						Timeout: time.Duration(h.TimeoutS * float64(time.Second)), Source: sourceName(source, file),
						Sandbox: sandbox.Mode(h.Sandbox)})
				}
				p.Listed = append(p.Listed, l)
			}
		}
	}
}

func sourceName(source, file string) string {
	if source == SourceUser || file == "" {
		return source
	}
	return file
}

// sortedEvents are hs's events, the known ones in Events order first.
func sortedEvents(hs config.Hooks) []string {
	var out []string
	for _, e := range Events {
		if _, ok := hs[e]; ok {
			out = append(out, e)
		}
	}
	for _, e := range EventsOf(hs) {
		if !knownEvent(e) {
			out = append(out, e)
		}
	}
	return out
}

func validSandbox(mode string) bool {
	_, err := sandbox.ParseMode(mode)
	return err == nil
}
