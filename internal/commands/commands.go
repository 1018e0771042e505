// Package commands loads custom slash commands: Markdown files the user
// (or the project) writes, each a prompt template that "/name args" expands
// into the user's message.
//
// Where they come from, in order of precedence:
//
//   - the user: $XDG_CONFIG_HOME/agent/commands/ (~/.config/agent/commands/);
//   - the project: .agent/commands/ in the nearest directory, from the
//     session's directory up (the user's home excluded), that has one, and
//     .agent/commands/ beside the project's config file
//     (.agent/config.json, found the same way) when that is another.
//
// A file's path below its directory names it: review.md is /review,
// git/commit.md is /git:commit (subdirectories namespace, at most MaxDepth
// deep). Names are lower-cased, and every run of characters other than
// a-z, 0-9, "-" and "_" becomes one "-"; a file whose name is left empty,
// or that repeats a name already taken in the same directory, is skipped
// with a notice. The user's command wins over a project's of the same name
// (a cloned repository may add commands, never replace the user's): the
// winner's Command.Overrides names the file it hides, and the hidden one is
// listed in Set.Shadowed. A command named like one of the reserved
// (built-in) names is never used, with a notice.
//
// A file may open with front matter between two "---" lines; its
// description and argument-hint keys are read (other keys are ignored),
// and it is not part of the prompt. Without a description the first
// non-empty line of the body stands for one. Descriptions and hints are
// single lines with terminal escapes removed; notices are too. Files over
// MaxFileBytes, files that are not UTF-8 text (a NUL byte, invalid UTF-8)
// and anything not a regular file are skipped with a notice, and so is a
// project's file that resolves (through a symbolic link, of the file or of
// the directory) outside the project: a cloned repository must not turn the
// user's own files into a message. The user's directory may link anywhere.
//
// Expand is pure: $ARGUMENTS becomes everything after the name, $1 … $9 the
// positional arguments (SplitArgs: white space separates them, quotes keep
// them together), a missing one nothing; a body with no placeholder gets
// "ARGUMENTS: …" appended when arguments were given, so they are never
// dropped. Nothing in a command runs: its text becomes the user's message,
// which then goes the usual way (its @path mentions attached, tool calls
// asked for as always).
//
// Catalog is the narrow entry point. Nothing is read until its first Load
// (a completion popup, /help, a use), so start-up pays nothing; every Load
// walks the directories again and re-reads only the files whose size or
// modification time changed, so new and edited files are picked up without
// a restart. A Catalog is safe for concurrent use.
package commands

import "strings"

// Sources of a command.
const (
	SourceProject = "project"
	SourceUser    = "user"
	// SourceSkill is a skill invoked as a command (Roots.Skills).
	SourceSkill = "skill"
)

// Bounds of a scan.
const (
	// MaxFileBytes is the largest command file read; a larger one is
	// skipped with a notice.
	MaxFileBytes = 64 << 10
	// MaxDepth is how many directories deep below a commands directory
	// files are looked for (git/commit.md is one deep).
	MaxDepth = 3
	// MaxFiles bounds the command files taken from one directory.
	MaxFiles = 1000
	// maxDescription bounds a description or hint, in runes.
	maxDescription = 200
)

// Command is one custom slash command.
type Command struct {
	// Name is what follows the "/": "review", "git:commit".
	Name string
	// Description and ArgumentHint come from the front matter (the
	// description otherwise from the body's first line); single lines,
	// safe for the terminal.
	Description  string
	ArgumentHint string
	// Source is SourceProject or SourceUser; Path is the file.
	Source string
	Path   string
	// Overrides is the file of a command of the same name this one hides
	// (a project's command under the user's, or under a nearer project
	// directory's), "" when none;
	// OverridesSource is that command's source.
	Overrides       string
	OverridesSource string
	// ShadowedBy, in Set.Shadowed, is the file of the command that hides
	// this one.
	ShadowedBy string
	// Body is the prompt template, front matter removed.
	Body string
}

// Set is the result of a scan: the usable commands sorted by name, and
// notices about files skipped or hidden, each a single safe line.
type Set struct {
	Commands []Command
	Notices  []string
	// Shadowed are the commands hidden by another of the same name (a
	// project's under the user's), sorted by name: not usable, listed so
	// the user sees what the project offered.
	Shadowed []Command
}

// Find returns the command named name.
func (s Set) Find(name string) (Command, bool) {
	name = strings.ToLower(name)
	for _, c := range s.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// Match returns the commands whose name starts with prefix.
func (s Set) Match(prefix string) []Command {
	prefix = strings.ToLower(prefix)
	var out []Command
	for _, c := range s.Commands {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// Roots says where to look for commands. Its zero value finds none.
type Roots struct {
	// Dir is the session's directory; the project's commands are looked
	// for from there up.
	Dir string
	// ProjectFile is the project's config file (config.Config.ProjectFile),
	// "" when there is none.
	ProjectFile string
	// Home is the user's home directory, where the walk up stops (its own
	// .agent/commands is not a project's).
	Home string
	// UserDir is the user's commands directory (config.UserCommandsDir).
	UserDir string
	// Skills, when set, are the usable skills a user may invoke as /name
	// (internal/skills: Source SourceSkill). A custom command of the same
	// name wins (it is the user's own or an explicit command of the
	// project); the skill is then listed in Set.Shadowed.
	Skills func() []Command
}
