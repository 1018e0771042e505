package tui

// The editor's vi keys (ui.vi: true), small on purpose. The editor starts
// in insert mode, where keys type as always; Esc goes to normal mode
// (the prompt shows "N"), where
//
//	h l        a character left, right     j k   a line down, up
//	w b        a word forward, back        0 $   the line's start, end
//	           (words are runs of non-space)
//	x          delete the character        dd    delete the line
//	i a        insert before, after the cursor
//	A          insert at the line's end    o     open a line below
//
// and other printable keys do nothing. Enter still sends, and the chat's
// other keys (Ctrl+…, arrows, Tab) do what they do in either mode; Esc in
// normal mode is the chat's Esc (interrupt the turn). A sent message
// starts the next one in insert mode.

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
)

// viMode is the vi state of the editor; its zero value is off.
type viMode struct {
	on      bool
	normal  bool
	pending string // "d" after the first d of dd
}

// key handles k for e: false when k is not the vi keys' to take.
func (v *viMode) key(e *editor, k tea.KeyPressMsg) bool {
	if !v.on {
		return false
	}
	s := k.String()
	if !v.normal {
		if s == "esc" {
			v.normal, v.pending = true, ""
			return true
		}
		return false
	}
	if k.Text == "" || k.Mod&^tea.ModShift != 0 {
		v.pending = ""
		return false // enter, esc, arrows, ctrl and alt keys: the chat's
	}
	if v.pending == "d" {
		v.pending = ""
		if s == "d" {
			deleteLine(e)
		}
		return true
	}
	line, col := currentLine(e), e.ta.Column()
	switch s {
	case "h":
		e.ta.SetCursorColumn(max(0, col-1))
	case "l":
		e.ta.SetCursorColumn(min(len(line), col+1))
	case "j":
		e.ta.CursorDown()
	case "k":
		e.ta.CursorUp()
	case "w":
		e.ta.SetCursorColumn(wordForward(line, col))
	case "b":
		e.ta.SetCursorColumn(wordBack(line, col))
	case "0":
		e.ta.CursorStart()
	case "$":
		e.ta.CursorEnd()
	case "x":
		if col < len(line) { // never joins the next line
			e.ta, _ = e.ta.Update(tea.KeyPressMsg{Code: tea.KeyDelete})
		}
	case "d":
		v.pending = "d"
	case "i":
		v.normal = false
	case "a":
		e.ta.SetCursorColumn(min(len(line), col+1))
		v.normal = false
	case "A":
		e.ta.CursorEnd()
		v.normal = false
	case "o":
		e.ta.CursorEnd()
		e.ta.InsertString("\n")
		v.normal = false
	}
	return true
}

// currentLine is the runes of the cursor's line.
func currentLine(e *editor) []rune {
	lines := strings.Split(e.ta.Value(), "\n")
	return []rune(lines[min(e.ta.Line(), len(lines)-1)])
}

// wordForward is the column of the next word's start after col in line,
// words being runs of non-space; the line's end when there is none.
func wordForward(line []rune, col int) int {
	i := col
	for i < len(line) && !unicode.IsSpace(line[i]) {
		i++
	}
	for i < len(line) && unicode.IsSpace(line[i]) {
		i++
	}
	return i
}

// wordBack is the column of the start of the word before col in line.
func wordBack(line []rune, col int) int {
	i := min(col, len(line))
	for i > 0 && unicode.IsSpace(line[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(line[i-1]) {
		i--
	}
	return i
}

// deleteLine deletes the cursor's line, the cursor going to the start of
// the line that takes its place.
func deleteLine(e *editor) {
	if e.ta.LineCount() == 1 {
		e.ta.SetValue("")
		return
	}
	last := e.ta.Line() == e.ta.LineCount()-1
	e.ta.CursorStart()
	e.ta, _ = e.ta.Update(tea.KeyPressMsg{Code: 'k', Mod: tea.ModCtrl}) // the line's text
	if last {
		e.ta, _ = e.ta.Update(tea.KeyPressMsg{Code: tea.KeyBackspace}) // the newline before it
	} else {
		e.ta, _ = e.ta.Update(tea.KeyPressMsg{Code: tea.KeyDelete}) // the newline after it
	}
	e.ta.CursorStart()
}

// prompt is the editor's first-line prompt: "N " in normal mode.
func (v *viMode) prompt() string {
	if v.on && v.normal {
		return "N "
	}
	return "› "
}
