package overlay

// The /skills drawer: the skills of the session's directory
// (internal/skills), each with its source, whether it is approved, its
// size and, for a broken one, why it is not loaded; a project's skill
// waiting for approval is approved with a. The chat loads the set off the
// Update loop and opens the drawer with it; approving runs through the
// approve func the chat gives (a tea.Cmd that reloads and reopens).

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/skills"
	"github.com/ctxloop/agent/internal/tui/theme"
)

// SkillsDrawer lists a scan's skills, the shadowed ones after the skill
// that hides them.
type SkillsDrawer struct {
	rows    []skills.Skill
	sel     int
	approve func(skills.Skill) tea.Cmd
}

// NewSkillsDrawer opens on set; approve approves a project's skill.
func NewSkillsDrawer(set skills.Set, approve func(skills.Skill) tea.Cmd, sel int) *SkillsDrawer {
	d := &SkillsDrawer{approve: approve, sel: sel}
	for _, sk := range set.Skills {
		d.rows = append(d.rows, sk)
		for _, sh := range set.Shadowed {
			if sh.Name == sk.Name {
				d.rows = append(d.rows, sh)
			}
		}
	}
	return d
}

// Selected is the index of the selected row.
func (d *SkillsDrawer) Selected() int { return d.sel }

// Update moves the selection and approves.
func (d *SkillsDrawer) Update(_ Host, msg tea.Msg) (Result, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return Keep, nil
	}
	d.sel = min(max(d.sel, 0), max(len(d.rows)-1, 0))
	switch k.String() {
	case "esc", "q", "enter":
		return Close, nil
	case "up":
		d.sel = max(d.sel-1, 0)
	case "down":
		d.sel = min(d.sel+1, max(len(d.rows)-1, 0))
	case "a":
		if len(d.rows) > 0 && Approvable(d.rows[d.sel]) && d.approve != nil {
			return Keep, d.approve(d.rows[d.sel])
		}
	default:
		return Pass, nil
	}
	return Keep, nil
}

// Approvable reports whether a could be approved: a project's skill, not
// broken, not shadowed, not approved yet.
func Approvable(sk skills.Skill) bool {
	return sk.Source == skills.SourceProject && sk.Broken == "" && sk.ShadowedBy == "" && !sk.Approved
}

// SkillStatus is a skill's state in a few words.
func SkillStatus(sk skills.Skill) string {
	switch {
	case sk.ShadowedBy != "":
		return "shadowed by yours"
	case sk.Broken != "":
		return "broken"
	case !sk.Approved:
		return "not approved (a approves)"
	case sk.ModelHidden:
		return "approved, /name only"
	}
	return "approved"
}

// View shows the skills.
func (d *SkillsDrawer) View(h Host, width, height int) []string {
	th := h.Theme()
	inner := max(10, width-4)
	d.sel = min(max(d.sel, 0), max(len(d.rows)-1, 0))
	var body []string
	if len(d.rows) == 0 {
		body = append(body, th.Dim.Render("no skills: a folder with a SKILL.md in ~/.config/agent/skills/, ~/.claude/skills/ or the project's .claude/skills/"))
	}
	selLine := 0
	for i, sk := range d.rows {
		row := fmt.Sprintf("%s  %s · %s · %s", sk.Name, sk.Source, SkillStatus(sk), size(sk.SizeBytes))
		row = theme.OneLine(row, inner-2)
		if i == d.sel {
			selLine = len(body)
			row = th.AccentText.Render("› " + row)
		} else {
			row = "  " + row
		}
		body = append(body, row)
		detail := sk.Description
		if sk.Broken != "" {
			detail = "not loaded: " + sk.Broken
		}
		body = append(body, th.Dim.Render("    "+theme.OneLine(detail, inner-4)))
	}
	return theme.Frame(th, fmt.Sprintf("Skills (%d)", len(d.rows)), theme.ClampBody(body, height, selLine), "↑↓ select · a approve a project's skill · esc", width)
}

func size(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}
