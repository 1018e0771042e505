package overlay

// The Enter gate of the loop's questions. Enter confirms the highlighted
// choice of a question the user gave the keyboard (questions.go), and Tab
// both gives it the keyboard and moves the highlight — with "allow once"
// (or "approve and start") highlighted first. A Tab meant for the editor
// (where it queues a message) followed by Enter would approve by accident.
// So Enter lets nothing run (allow, approve, continue) until the focus and
// the highlight have stood still for Grace, the same grace that keeps
// a question from taking the keys of someone typing when it appears; an
// Enter too soon is swallowed (it neither answers nor reaches the editor).
// Enter on a denial is not gated (it only opens the reason field), nor are
// the modified shortcuts (alt+a …), which are deliberate.

// enterGate tracks the moves of a question's focus and highlight. Its zero
// value lets Enter through: a question takes Enter only once focused, and
// Tab, the way to focus it, is a move.
type enterGate struct {
	moves  int  // moves so far, to match a settle to the latest
	moving bool // a move within Grace
}

// SettledMsg says a move's grace ended.
type SettledMsg struct{ move int }

// moved records a move and returns the message its grace ends with.
func (g *enterGate) moved() SettledMsg {
	g.moves++
	g.moving = true
	return SettledMsg{move: g.moves}
}

// settle ends the grace of msg's move, unless another move followed it.
func (g *enterGate) settle(msg SettledMsg) {
	if msg.move == g.moves {
		g.moving = false
	}
}

// holds reports whether the gate swallows key, a key for a focused
// question q: Enter on a choice that lets something run (q.approving)
// while a move's grace runs. Enter on a denial, or in a denial's reason
// field, goes through.
func (g *enterGate) holds(q Question, key string) bool {
	return key == "enter" && g.moving && q.Approving()
}

// movesHighlight reports whether key moves a focused question's
// highlight.
func movesHighlight(key string) bool {
	switch key {
	case "tab", "shift+tab", "left", "right":
		return true
	}
	return false
}
