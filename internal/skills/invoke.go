package skills

// invoke.go: the usable skills as custom commands (internal/commands
// Roots.Skills), so the user invokes one as /name: the skill's text
// (Loaded: its folder, then its body, $ARGUMENTS expanded as a command's)
// becomes the user's message. A custom command of the same name wins.

import "github.com/ctxloop/agent/internal/commands"

// Commands returns a func that loads c and gives its usable skills as
// commands, for commands.Roots.Skills.
func Commands(c *Catalog) func() []commands.Command {
	return func() []commands.Command {
		var out []commands.Command
		for _, sk := range c.Load().Usable() {
			out = append(out, commands.Command{Name: sk.Name, Description: sk.Description,
				Source: commands.SourceSkill, Path: sk.Path, Body: Loaded(sk)})
		}
		return out
	}
}
