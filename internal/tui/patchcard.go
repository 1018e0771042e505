package tui

// A step's changes to the files, seen two ways: the patch line under the
// step's tool cards ("± changed 3 files +12 −4", expandable to the file
// list), and /diff, the turn's unified diff in a scrollable overlay,
// coloured by the one diff renderer (diffview).

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/snapshot"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/diffview"
)

// patchItem is a step's patch part.
type patchItem struct {
	state    message.PatchState
	expanded bool
	ver      int
	cache    lineCache
}

func (p *patchItem) toggle() bool {
	p.expanded = !p.expanded
	p.ver++
	return true
}

// patchHeadline is the collapsed line of a patch: the files and lines
// it changed, and how many paths the snapshots left out.
func patchHeadline(ps *message.PatchState) string {
	n := len(ps.Files)
	added, deleted := ps.Lines()
	s := fmt.Sprintf("± changed %d file%s +%d −%d", n, plural(n), added, deleted)
	if n == 0 {
		s = "± no file changed"
	}
	if k := len(ps.Lost); k > 0 {
		s += fmt.Sprintf(", %d not restorable", k)
	}
	if k := len(ps.Outside); k > 0 {
		s += fmt.Sprintf(", %d not the agent's", k)
	}
	if k := len(ps.Skipped); k > 0 {
		s += fmt.Sprintf(", %d path%s not snapshotted", k, plural(k))
	}
	return s
}

// outsideLine says a change made while the step ran that is not its own.
func outsideLine(o message.PatchOutside) string {
	who := o.Why
	if o.Session != "" {
		who = "by session " + o.Session
	}
	return fmt.Sprintf("not the agent's: %s (%s, %s)", termsafe.Strip(o.Path), o.Status, who)
}

func (p *patchItem) lines(rc *renderCtx) []string {
	if ls, ok := p.cache.get(rc, p.ver); ok {
		return ls
	}
	th := rc.th
	expanded := p.expanded || rc.expandAll
	hint := " · ctrl+o lists them · /diff shows the turn"
	if expanded {
		hint = ""
	}
	head := th.AccentText.Render(patchHeadline(&p.state)) + th.Dim.Render(hint)
	out := []string{"  " + fit(head, rc.width-2)}
	if expanded {
		w := rc.width - 6
		for _, f := range p.state.Files {
			line := fmt.Sprintf("%-9s %s", f.Status, termsafe.Strip(f.Path))
			counts := th.OkText.Render(fmt.Sprintf("+%d", f.LinesAdded)) + " " + th.ErrorText.Render(fmt.Sprintf("−%d", f.LinesDeleted))
			if f.Binary {
				counts = th.Dim.Render("binary")
			}
			if f.OldMode != "" {
				counts += th.Dim.Render(fmt.Sprintf(" mode %s → %s", f.OldMode, f.NewMode))
			}
			if f.Unsure != "" {
				counts += th.WarnText.Render(" (unsure: undo asks)")
			}
			out = append(out, "    "+th.Text.Render(fit(line, max(10, w-20)))+"  "+counts)
		}
		for _, l := range p.state.Lost {
			out = append(out, "    "+th.WarnText.Render(fit("not restorable: "+loop.DescribeLost(l), w)))
		}
		for _, o := range p.state.Outside {
			out = append(out, "    "+th.Dim.Render(fit(outsideLine(o), w)))
		}
		for _, s := range p.state.Skipped {
			out = append(out, "    "+th.WarnText.Render(fit(fmt.Sprintf("not snapshotted: %s (%s)", termsafe.Strip(s.Path), s.Reason), w)))
		}
	}
	return p.cache.put(rc, p.ver, append(out, ""))
}

// diffDrawer is the /diff overlay: a turn's changes, scrollable.
type diffDrawer struct {
	d      *loop.TurnDiff
	scroll int
	// rows are rendered for width and th.
	rows  []string
	width int
	th    *theme
	// page is the body height of the last view, for pgup and pgdn.
	page int
}

// scrollKey scrolls the diff for a key the conversation would otherwise
// take (pgup, pgdn); it reports whether it did.
func (d *diffDrawer) scrollKey(key string) bool {
	page := max(1, d.page-1)
	switch key {
	case "up", "k":
		d.scroll--
	case "down", "j":
		d.scroll++
	case "pgup", "b":
		d.scroll -= page
	case "pgdown", "space", " ", "f":
		d.scroll += page
	case "home", "g":
		d.scroll = 0
	case "end", "G":
		d.scroll = len(d.rows)
	default:
		return false
	}
	d.scroll = max(0, d.scroll) // the view clamps the end
	return true
}

func (d *diffDrawer) update(m *Model, msg tea.Msg) (drawerResult, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return drawerKeep, nil
	}
	if d.scrollKey(k.String()) {
		return drawerKeep, nil
	}
	return infoKeys(msg), nil
}

func (d *diffDrawer) view(m *Model, width, height int) []string {
	th := m.th
	inner := max(10, width-4)
	if d.rows == nil || d.width != inner || d.th != th {
		d.rows = renderTurnDiff(th, d.d.Patch, inner)
		for i, l := range d.d.Lost {
			if i == 0 {
				d.rows = append(d.rows, "")
			}
			d.rows = append(d.rows, th.WarnText.Render(fit("not restorable: "+loop.DescribeLost(l), inner)))
		}
		for _, o := range d.d.Outside {
			d.rows = append(d.rows, th.Dim.Render(fit(outsideLine(o), inner)))
		}
		d.width, d.th = inner, th
	}
	t := d.d.Turn
	title := fmt.Sprintf("Diff of turn %d: %s", t.N, oneLine(termsafe.Strip(t.Text), max(10, width-30)))
	room := max(1, height-2)
	d.page = room
	if len(d.rows) <= room {
		d.scroll = 0
		return frameLines(th, title, d.rows, "esc close", width)
	}
	d.scroll = min(d.scroll, len(d.rows)-room)
	body := d.rows[d.scroll : d.scroll+room]
	footer := fmt.Sprintf("lines %d–%d of %d · ↑↓ pgup pgdn home end scroll · esc close", d.scroll+1, d.scroll+room, len(d.rows))
	return frameLines(th, title, body, footer, width)
}

// renderTurnDiff renders a turn's patch for width: a line of totals,
// then per file a header and its diff.
func renderTurnDiff(th *theme, p *snapshot.Patch, width int) []string {
	if p == nil || len(p.Files) == 0 {
		return []string{th.Dim.Render("this turn changed no file")}
	}
	added, deleted := 0, 0
	for _, f := range p.Files {
		added, deleted = added+f.LinesAdded, deleted+f.LinesDeleted
	}
	out := []string{th.Bold.Render(fmt.Sprintf("%d file%s changed ", len(p.Files), plural(len(p.Files)))) +
		th.OkText.Render(fmt.Sprintf("+%d", added)) + " " + th.ErrorText.Render(fmt.Sprintf("−%d", deleted))}
	chunks := splitPatch(p.Text)
	for i, f := range p.Files {
		out = append(out, "")
		head := th.Bold.Render(fit(termsafe.Strip(f.Path), max(10, width-30))) + "  " + th.Dim.Render(f.Status.String())
		if !f.Binary {
			head += "  " + th.OkText.Render(fmt.Sprintf("+%d", f.LinesAdded)) + " " + th.ErrorText.Render(fmt.Sprintf("−%d", f.LinesDeleted))
		}
		out = append(out, head)
		switch {
		case f.Binary:
			out = append(out, th.Dim.Render("  binary file"))
		case i >= len(chunks):
			out = append(out, th.Dim.Render("  (not shown: the diff was cut)"))
		case !hasHunk(chunks[i]):
			if f.OldMode != f.NewMode && f.OldMode != "000000" && f.NewMode != "000000" {
				out = append(out, th.Dim.Render(fmt.Sprintf("  mode %s → %s", f.OldMode, f.NewMode)))
			} else {
				out = append(out, th.Dim.Render("  (no lines)"))
			}
		default:
			out = append(out, diffview.Render(chunks[i], width, diffview.Auto, th.Diff)...)
		}
	}
	if p.Truncated {
		out = append(out, "", th.WarnText.Render("the diff is cut here: `agent diff` prints it all"))
	}
	return out
}

// splitPatch splits a multi-file unified diff (git's "diff --git"
// sections) into one text per file, each from its "---" line on: the
// other header lines (index, modes) are not diff lines.
func splitPatch(text string) []string {
	var parts []*strings.Builder
	inBody := false
	for _, l := range strings.SplitAfter(text, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			parts = append(parts, &strings.Builder{})
			inBody = false
		case len(parts) == 0:
		case inBody || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "@@"):
			inBody = true
			parts[len(parts)-1].WriteString(l)
		}
	}
	out := make([]string, len(parts))
	for i, b := range parts {
		out[i] = b.String()
	}
	return out
}

// hasHunk reports whether a file's diff has a hunk of lines.
func hasHunk(diff string) bool {
	return strings.HasPrefix(diff, "@@") || strings.Contains(diff, "\n@@")
}
