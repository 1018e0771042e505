package overlay

// Managing what a picker lists (/sessions): ctrl+r renames the selected
// entry and ctrl+d deletes it after a y/N confirmation. The picker only
// asks: the chat takes the action (TakeAction) after Update, does it, and
// fills the picker again (Loaded) or says why not (Say). While a rename or
// a confirmation is open, keys go to it, not to the filter; esc leaves it
// without closing the picker.

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
)

// The keys of a managed picker.
const (
	RenameKey = "ctrl+r"
	DeleteKey = "ctrl+d"
)

// PickerAction is what the user asked of an entry: Rename (to Title) or
// Delete.
type PickerAction struct {
	Rename, Delete bool
	Value, Label   string
	Title          string
}

// manage is a managed picker's state: the entry being renamed (with the
// text typed) or asked about, and the action taken, until the chat takes
// it.
type manage struct {
	renaming, confirming bool
	entry                PickerEntry
	text                 string
	action               *PickerAction
}

// Manageable lets the user rename and delete entries (ctrl+r, ctrl+d).
func (p *Picker) Manageable() *Picker {
	p.manage = &manage{}
	return p
}

// TakeAction returns the action the user asked for since the last call.
func (p *Picker) TakeAction() (PickerAction, bool) {
	if p.manage == nil || p.manage.action == nil {
		return PickerAction{}, false
	}
	a := *p.manage.action
	p.manage.action = nil
	return a, true
}

// Say shows note above the entries (what an action did, or why not).
func (p *Picker) Say(note string) { p.note = note }

// manageKey handles a key of a managed picker; handled is false for a key
// the picker's own Update should take.
func (p *Picker) manageKey(k tea.KeyPressMsg, vis []PickerEntry) (handled bool) {
	mg := p.manage
	if mg == nil {
		return false
	}
	key := k.String()
	switch {
	case mg.renaming:
		switch key {
		case "esc":
			mg.renaming = false
		case "enter":
			title := strings.TrimSpace(mg.text)
			switch {
			case title == "":
				p.note = "a title cannot be empty"
			case strings.IndexFunc(title, unicode.IsControl) >= 0:
				p.note = "a title cannot hold control characters"
			default:
				mg.renaming = false
				mg.action = &PickerAction{Rename: true, Value: mg.entry.Value, Label: mg.entry.Label, Title: title}
			}
		case "backspace":
			if r := []rune(mg.text); len(r) > 0 {
				mg.text = string(r[:len(r)-1])
			}
		default:
			mg.text += k.Text
		}
		return true
	case mg.confirming:
		mg.confirming = false
		if key == "y" || key == "Y" {
			mg.action = &PickerAction{Delete: true, Value: mg.entry.Value, Label: mg.entry.Label}
		} else {
			p.note = "kept " + mg.entry.Label
		}
		return true
	case key == RenameKey || key == DeleteKey:
		if len(vis) == 0 {
			return true
		}
		mg.entry = vis[min(p.sel, len(vis)-1)]
		p.note = ""
		if key == RenameKey {
			mg.renaming, mg.text = true, mg.entry.Label
		} else {
			mg.confirming = true
		}
		return true
	}
	return false
}

// managePaste takes a paste into an open rename.
func (p *Picker) managePaste(text string) bool {
	if p.manage == nil || !p.manage.renaming {
		return false
	}
	p.manage.text += strings.ReplaceAll(text, "\n", " ")
	return true
}

// manageLine is the line that replaces the filter while a rename or a
// confirmation is open, and the footer's keys; "" when none is.
func (p *Picker) manageLine() (line, footer string) {
	mg := p.manage
	switch {
	case mg == nil:
		return "", ""
	case mg.renaming:
		return "rename › " + mg.text, "enter rename · esc back"
	case mg.confirming:
		return "delete " + mg.entry.Label + "? y deletes it and its history · any other key keeps it", "y delete · any key keep"
	}
	return "", "↑↓ choose · enter open · ctrl+r rename · ctrl+d delete · esc close"
}
