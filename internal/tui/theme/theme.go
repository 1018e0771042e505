// Package theme holds the chat's styles and the box drawing its panels
// share: the Theme of a background (light or dark), the frame a drawer or
// dialog is drawn in (Frame, FrameWith, ClampBody), and the width-aware
// text helpers they lay lines out with (Fit, Pad, Wrap, OneLine). It does
// no I/O and knows nothing of the chat: internal/tui and its overlays
// import it, it imports neither.
package theme

import (
	"image/color"

	"charm.land/lipgloss/v2"

	"github.com/ctxloop/agent/internal/tui/diffview"
)

// Theme holds the styles of one background (light or dark). It is built
// once per background change (New); everything on screen renders with it.
type Theme struct {
	Dark bool

	Accent, Muted, Success, Failure, Warning, Info color.Color

	Text        lipgloss.Style
	Dim         lipgloss.Style
	Faint       lipgloss.Style
	Bold        lipgloss.Style
	UserBar     lipgloss.Style
	UserText    lipgloss.Style
	ErrorText   lipgloss.Style
	WarnText    lipgloss.Style
	OkText      lipgloss.Style
	InfoText    lipgloss.Style
	AccentText  lipgloss.Style
	Selected    lipgloss.Style
	StatusBar   lipgloss.Style
	StatusModel lipgloss.Style
	Badge       lipgloss.Style
	Rule        lipgloss.Style
	DiffAdd     lipgloss.Style
	DiffDel     lipgloss.Style
	DiffHunk    lipgloss.Style
	Diff        diffview.Styles
	Key         lipgloss.Style
	BarSystem   lipgloss.Style
	BarTools    lipgloss.Style
	BarMessages lipgloss.Style
	BarFree     lipgloss.Style
	BarReserve  lipgloss.Style
}

// New builds the theme of a dark (or light) background.
func New(dark bool) *Theme {
	ld := lipgloss.LightDark(dark)
	c := lipgloss.Color
	t := &Theme{
		Dark:    dark,
		Accent:  ld(c("#2f5fd0"), c("#7aa2f7")),
		Muted:   ld(c("#7a7f88"), c("#737994")),
		Success: ld(c("#2e7d32"), c("#9ece6a")),
		Failure: ld(c("#c62828"), c("#f7768e")),
		Warning: ld(c("#a35f00"), c("#e0af68")),
		Info:    ld(c("#00796b"), c("#7dcfff")),
	}
	s := lipgloss.NewStyle
	t.Text = s()
	t.Dim = s().Foreground(t.Muted)
	t.Faint = s().Foreground(t.Muted).Italic(true)
	t.Bold = s().Bold(true)
	t.UserBar = s().Foreground(t.Accent).Bold(true)
	t.UserText = s().Foreground(ld(c("#1a1b26"), c("#e6e9f2")))
	t.ErrorText = s().Foreground(t.Failure)
	t.WarnText = s().Foreground(t.Warning)
	t.OkText = s().Foreground(t.Success)
	t.InfoText = s().Foreground(t.Info)
	t.AccentText = s().Foreground(t.Accent)
	t.Selected = s().Background(ld(c("#dde3f0"), c("#2f3549"))).Bold(true)
	t.StatusBar = s().Foreground(ld(c("#3b3f4a"), c("#c0caf5")))
	t.StatusModel = s().Foreground(t.Accent).Bold(true)
	t.Badge = s().Foreground(ld(c("#ffffff"), c("#1a1b26"))).Background(t.Warning).Bold(true)
	t.Rule = s().Foreground(ld(c("#c8ccd4"), c("#3b4261")))
	t.DiffAdd = s().Foreground(t.Success)
	t.DiffDel = s().Foreground(t.Failure)
	t.DiffHunk = s().Foreground(t.Info)
	t.Diff = diffview.Styles{
		Context: t.Dim,
		Add:     t.DiffAdd,
		Del:     t.DiffDel,
		AddWord: s().Foreground(t.Success).Background(ld(c("#d7f5dc"), c("#2a3f2a"))).Bold(true),
		DelWord: s().Foreground(t.Failure).Background(ld(c("#fbdada"), c("#4a2a30"))).Bold(true),
		Hunk:    t.DiffHunk,
		Gutter:  s().Foreground(ld(c("#a0a4ac"), c("#565f89"))),
	}
	t.Key = s().Foreground(t.Accent).Bold(true)
	t.BarSystem = s().Foreground(ld(c("#7b1fa2"), c("#bb9af7")))
	t.BarTools = s().Foreground(ld(c("#00838f"), c("#7dcfff")))
	t.BarMessages = s().Foreground(t.Accent)
	t.BarFree = s().Foreground(ld(c("#c8ccd4"), c("#3b4261")))
	t.BarReserve = s().Foreground(t.Warning)
	return t
}
