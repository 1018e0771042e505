package main

// Agent Skills (internal/skills) outside the chat: `agent skills list
// [--json]` lists them with where each comes from, whether it is approved
// and why a broken one is not loaded; `agent skills approve [NAME...]`
// lets a project's skills be loaded. The catalog every driving command
// uses is made here (skillCatalog): the loop lists and loads its skills
// (loop.Options.Skills), and the custom commands take them as /name.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/skills"
)

// skillCatalog is the catalog of skills for dir: the app's own for its
// directory; it reads nothing until used.
func (a *app) skillCatalog(dir string) *skills.Catalog {
	if dir == a.dir && a.skills != nil {
		return a.skills
	}
	return newSkillCatalog(a.cfg, dir)
}

func newSkillCatalog(cfg *config.Config, dir string) *skills.Catalog {
	return skills.NewCatalog(skills.Roots{Dir: dir, Home: config.Home(os.Getenv), UserDir: config.UserSkillsDir(os.Getenv)},
		approval.Open(cfg.DataDir))
}

// skillsRow is the skills row of a stored session in dir, as its next
// turn would list them (`agent context`).
func (a *app) skillsRow(dir string) int64 {
	return loop.SkillsTokens(skills.Prompt(a.skillCatalog(dir).Load(), dir, config.Home(os.Getenv), skills.PromptBudgetChars))
}

// skillsWaiting is the one line a session's start says about the
// project's skills that wait for approval ("" when none, or no catalog);
// review says how to review them.
func skillsWaiting(c *skills.Catalog, review string) string {
	if c == nil {
		return ""
	}
	return skills.WaitingNotice(c.Load(), review)
}

func newSkillsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "List the Agent Skills of this directory, or approve a project's",
		Long: `Skills are folders holding a SKILL.md (YAML front matter with name and
description, then Markdown instructions) and, often, scripts and references:
the format Claude Code and others read (agentskills.io). The model sees each
skill's name and description and loads one with the skill tool when a task
needs it; you invoke one as /name.

They are read from ~/.config/agent/skills/ and ~/.claude/skills/ (yours),
and from .agent/skills/, .claude/skills/ and .agents/skills/ of the project.
Yours win a name over the project's. A project's skill is loaded only once
approved with ` + "`agent skills approve`" + `, and again after any change
to its SKILL.md: its scripts are meant to run (always through the bash tool
and its permissions).`,
		Example: `  agent skills list
  agent skills approve pdf`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newSkillsListCmd(g), newSkillsApproveCmd(g))
	return cmd
}

func newSkillsListCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the skills: source, approved, size, and why a broken one is not loaded",
		Example: `  agent skills list
  agent skills list --json | jq -r '.skills[] | select(.approved | not) | .name'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := loadApp(g)
			if err != nil {
				return err
			}
			return listSkills(cmd.OutOrStdout(), a.skillCatalog(a.dir).Load(), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func listSkills(out io.Writer, set skills.Set, asJSON bool) error {
	if asJSON {
		list, shadowed := set.Skills, set.Shadowed
		if list == nil {
			list = []skills.Skill{}
		}
		if shadowed == nil {
			shadowed = []skills.Skill{}
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{"skills": list, "shadowed": shadowed, "notices": set.Notices})
	}
	if len(set.Skills) == 0 {
		fmt.Fprintln(out, "No skills: a folder with a SKILL.md in ~/.config/agent/skills/ or ~/.claude/skills/ (yours), or .claude/skills/ of the project (see README \"Skills\").")
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	if len(set.Skills) > 0 {
		fmt.Fprintln(tw, "SKILL\tSOURCE\tSTATUS\tSIZE\tDESCRIPTION\tPATH")
	}
	row := func(sk skills.Skill, source string) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", sk.Name, source, skillStatus(sk), skillSize(sk.SizeBytes), oneLine(sk.Description, 60), safePath(sk.Path))
	}
	for _, sk := range set.Skills {
		row(sk, sk.Source)
		for _, sh := range set.Shadowed {
			if sh.Name == sk.Name {
				row(sh, sh.Source+" (shadowed by "+sk.Source+")")
			}
		}
	}
	tw.Flush()
	for _, sk := range set.Skills {
		if sk.Broken != "" {
			fmt.Fprintf(out, "broken: %s is not loaded: %s\n", sk.Name, sk.Broken)
		}
	}
	warnNotices(out, set.Notices)
	return nil
}

// skillStatus is a skill's state in a word or three.
func skillStatus(sk skills.Skill) string {
	switch {
	case sk.ShadowedBy != "":
		return "shadowed"
	case sk.Broken != "":
		return "broken"
	case !sk.Approved:
		return "not approved"
	case sk.ModelHidden:
		return "approved, /name only"
	}
	return "approved"
}

func skillSize(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}

func newSkillsApproveCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "approve [NAME...]",
		Short: "Let the project's skills be loaded (all those not approved, or those named)",
		Long: `approve records that you allow the project's skills named (all the
project's skills waiting for approval when none is named) to be listed to
the model and loaded, exactly as their SKILL.md is now: a change to it
needs approving again. Read them first (agent skills list shows where).`,
		Example: `  agent skills list
  agent skills approve pdf review`,
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := loadApp(g)
			if err != nil {
				return err
			}
			return approveSkills(cmd.OutOrStdout(), a.skillCatalog(a.dir).Load(), approval.Open(a.cfg.DataDir), args)
		},
	}
}

func approveSkills(out io.Writer, set skills.Set, store *approval.Store, names []string) error {
	waiting := set.Waiting() // none named: those not approved yet
	if len(names) > 0 {
		waiting = slices.DeleteFunc(slices.Clone(set.Skills), func(sk skills.Skill) bool {
			return sk.Source != skills.SourceProject || sk.Broken != "" || !slices.Contains(names, sk.Name)
		})
	}
	for _, n := range names {
		sk, ok := set.Find(n)
		switch {
		case !ok:
			return usageError("skills approve: no skill named %q here (agent skills list shows them)", n)
		case sk.Source != skills.SourceProject:
			return usageError("skills approve: %s is your own skill (%s): it needs no approval", n, safePath(sk.Path))
		case sk.Broken != "":
			return usageError("skills approve: %s is broken and cannot be loaded: %s", n, sk.Broken)
		}
	}
	if len(waiting) == 0 {
		fmt.Fprintln(out, "no project skills to approve")
		return nil
	}
	for _, sk := range waiting {
		if err := store.Approve(sk.Dir, skills.KindSkill, sk.Name, sk.Digest); err != nil {
			return err
		}
		fmt.Fprintf(out, "approved the skill %s (%s)\n", sk.Name, safePath(sk.Path))
	}
	return nil
}
