package tui

// /skills: the skills of the session's directory (internal/skills) in a
// drawer (overlay.SkillsDrawer). The catalog is read off the Update loop
// and the drawer opens with the result; approving a project's skill
// records it (internal/approval) off the loop too, then reads and reopens.
// The model sees an approved skill from the next turn on (its list is part
// of the system prompt made at a turn's start).

import (
	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/skills"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// skillsLoaded is a scan, to open the drawer on (sel the selected row);
// err is an approval that failed.
type skillsLoaded struct {
	set skills.Set
	sel int
	cat *skills.Catalog
	st  *approval.Store
	err error
}

// skillsCommand is /skills: the catalog (nil: none) read off the Update
// loop; st approves (nil: nothing can be approved here).
func skillsCommand(cat *skills.Catalog, st *approval.Store) tea.Cmd {
	return func() tea.Msg {
		if cat == nil {
			return skillsLoaded{}
		}
		return skillsLoaded{set: cat.Load(), cat: cat, st: st}
	}
}

func (l skillsLoaded) apply(m *Model) tea.Cmd {
	if l.err != nil {
		m.chat.notice(noticeWarn, "approve skill: "+l.err.Error(), "")
	}
	var d *overlay.SkillsDrawer
	d = overlay.NewSkillsDrawer(l.set, func(sk skills.Skill) tea.Cmd {
		if l.st == nil || l.cat == nil {
			return nil
		}
		sel := d.Selected()
		return func() tea.Msg {
			err := l.st.Approve(sk.Dir, skills.KindSkill, sk.Name, sk.Digest)
			return skillsLoaded{set: l.cat.Load(), sel: sel, cat: l.cat, st: l.st, err: err}
		}
	}, l.sel)
	m.drawer = skillsDrawer{d}
	return nil
}

// skillsDrawer puts overlay.SkillsDrawer in the chat's drawer slot.
type skillsDrawer struct{ *overlay.SkillsDrawer }

func (d skillsDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	return d.Update(chatHost{m}, msg)
}

func (d skillsDrawer) view(m *Model, width, height int) []string {
	return d.View(chatHost{m}, width, height)
}
