// Package skills reads Agent Skills (agentskills.io; Claude Code's
// skills): a folder holding SKILL.md — YAML front matter with a name and a
// description, then a Markdown body — and, optionally, scripts and
// references the body points to. The model sees each usable skill's name,
// description and folder in the system prompt (Prompt, bounded by
// PromptBudgetChars) and loads a body when a task needs it (the skill
// tool, Tool); the user invokes one as /name (Commands, through
// internal/commands).
//
// Where skills come from, the one that wins a name first:
//
//   - the user: $XDG_CONFIG_HOME/agent/skills/*/SKILL.md
//     (~/.config/agent/skills) and ~/.claude/skills/*/SKILL.md;
//   - the project: .agent/skills/, .claude/skills/ and .agents/skills/
//     of the nearest directory, from the session's directory up to its
//     repository's root (outside a repository: up to the home, excluded,
//     or the directory alone outside the home), that has any of them.
//
// The user's skill wins a name over a project's (a cloned repository may
// add skills, never replace the user's); the hidden one is listed in
// Set.Shadowed with the winner's path. A project's skill is usable only
// once the user approved it (internal/approval, kind KindSkill, keyed by
// the skill's folder and a digest of its SKILL.md: an edited SKILL.md
// needs approving again), as a project's hooks and MCP servers are: its
// scripts are meant to run. Its scripts still run only through the bash
// tool and its permissions; allowed-tools in the front matter is shown,
// never granted, and plan mode offers what it offers.
//
// SKILL.md is read by internal/safefile's rules: a project's SKILL.md (or
// its folder) that links outside the project, a FIFO, a device, and a file
// over MaxFileBytes are refused without blocking, and listed as broken
// with the reason. So is a SKILL.md whose front matter is missing or not
// valid YAML, or lacks a usable name or description: a broken skill is
// listed, never loaded. Names, descriptions and reasons are single lines
// with terminal escapes removed.
//
// Catalog is the narrow entry point; nothing is read until its first
// Load, and every Load scans again (re-reading only files whose size or
// modification time changed), so an added or edited skill shows up at the
// next turn. A Catalog is safe for concurrent use.
package skills

import "strings"

// Sources of a skill.
const (
	SourceProject = "project"
	SourceUser    = "user"
)

// Bounds.
const (
	// MaxFileBytes is the largest SKILL.md read; a larger one is broken.
	MaxFileBytes = 256 << 10
	// MaxSkills bounds the skills taken from one skills directory.
	MaxSkills = 500
	// maxNameRunes and maxDescriptionRunes are the format's limits.
	maxNameRunes        = 64
	maxDescriptionRunes = 1024
)

// Skill is one skill found by a scan.
type Skill struct {
	// Name is the front matter's name ("" when broken before it was read:
	// then Folder stands for it).
	Name string `json:"name"`
	// Description is the front matter's, on one line.
	Description string `json:"description"`
	// Source is SourceProject or SourceUser.
	Source string `json:"source"`
	// Dir is the skill's folder (absolute); Path its SKILL.md.
	Dir  string `json:"dir"`
	Path string `json:"path"`
	// SizeBytes is SKILL.md's size.
	SizeBytes int64 `json:"size_bytes"`
	// Approved: a user's skill always; a project's once approved.
	Approved bool `json:"approved"`
	// Broken is why the skill is not loaded ("" when it is usable).
	Broken string `json:"broken,omitempty"`
	// AllowedTools are the front matter's allowed-tools, shown and never
	// granted.
	AllowedTools []string `json:"allowed_tools,omitempty"`
	// License is the front matter's license.
	License string `json:"license,omitempty"`
	// ModelHidden: disable-model-invocation is set, so the model is not
	// told of it and cannot load it; the user still can (/name).
	ModelHidden bool `json:"model_hidden,omitempty"`
	// ShadowedBy, in Set.Shadowed, is the SKILL.md of the skill that hides
	// this one.
	ShadowedBy string `json:"shadowed_by,omitempty"`
	// Digest is the approval digest of SKILL.md's bytes.
	Digest string `json:"-"`
	// body is the Markdown after the front matter.
	body string
}

// Body is the skill's Markdown body, front matter removed.
func (s Skill) Body() string { return s.body }

// Usable reports whether the skill may be loaded: not broken, approved.
func (s Skill) Usable() bool { return s.Broken == "" && s.Approved }

// Set is a scan's result.
type Set struct {
	// Skills are the skills that hold their name (usable or not: a
	// broken or unapproved one is listed with why), sorted by name.
	Skills []Skill
	// Shadowed are skills hidden by another of the same name, sorted by
	// name.
	Shadowed []Skill
	// Notices are directories that could not be read, one line each.
	Notices []string
}

// Find returns the skill named name among s.Skills.
func (s Set) Find(name string) (Skill, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, sk := range s.Skills {
		if sk.Name == name {
			return sk, true
		}
	}
	return Skill{}, false
}

// Usable returns the usable skills, sorted by name.
func (s Set) Usable() []Skill {
	var out []Skill
	for _, sk := range s.Skills {
		if sk.Usable() {
			out = append(out, sk)
		}
	}
	return out
}

// Roots says where to look for skills. Its zero value finds none.
type Roots struct {
	// Dir is the session's directory; the project's skills are looked
	// for from there up.
	Dir string
	// Home is the user's home directory: the walk up stops before it,
	// and ~/.claude/skills is the user's.
	Home string
	// UserDir is the user's own skills directory
	// (config.UserSkillsDir: ~/.config/agent/skills).
	UserDir string
}
