package theme

// The frame of a drawer or dialog: a titled rounded box with a footer,
// width cells wide, its body cut to the height it is given.

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Frame draws a titled box around body in the theme's rule style.
func Frame(th *Theme, title string, body []string, footer string, width int) []string {
	return FrameWith(th.Rule, title, body, footer, width)
}

// FrameWith draws the box of Frame in style.
func FrameWith(style lipgloss.Style, title string, body []string, footer string, width int) []string {
	inner := max(1, width-4)
	top := "╭─ " + title + " "
	top += strings.Repeat("─", max(0, width-ansi.StringWidth(top)-1)) + "╮"
	out := []string{style.Render(Fit(top, width))}
	side := style.Render("│")
	for _, l := range body {
		out = append(out, side+" "+Pad(l, inner)+" "+side)
	}
	bottom := "╰"
	if footer != "" {
		bottom += "─ " + footer + " "
	}
	bottom += strings.Repeat("─", max(0, width-ansi.StringWidth(bottom)-1)) + "╯"
	out = append(out, style.Render(Fit(bottom, width)))
	return out
}

// ClampBody keeps at most height-2 body lines (the frame takes two),
// around the selected line sel.
func ClampBody(body []string, height, sel int) []string {
	n := height - 2
	if n < 1 {
		n = 1
	}
	if len(body) <= n {
		return body
	}
	start := 0
	if sel >= n {
		start = sel - n + 1
	}
	return body[start : start+n]
}
