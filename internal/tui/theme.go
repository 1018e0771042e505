package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"

	"github.com/ctxloop/agent/internal/tui/diffview"
)

// theme holds the styles of one background (light or dark). It is built
// once per background change; items render with it.
type theme struct {
	dark bool

	accent, muted, success, failure, warning, info color.Color

	text        lipgloss.Style
	dim         lipgloss.Style
	faint       lipgloss.Style
	bold        lipgloss.Style
	userBar     lipgloss.Style
	userText    lipgloss.Style
	errorText   lipgloss.Style
	warnText    lipgloss.Style
	okText      lipgloss.Style
	infoText    lipgloss.Style
	accentText  lipgloss.Style
	selected    lipgloss.Style
	statusBar   lipgloss.Style
	statusModel lipgloss.Style
	badge       lipgloss.Style
	rule        lipgloss.Style
	diffAdd     lipgloss.Style
	diffDel     lipgloss.Style
	diffHunk    lipgloss.Style
	diff        diffview.Styles
	key         lipgloss.Style
	barSystem   lipgloss.Style
	barTools    lipgloss.Style
	barMessages lipgloss.Style
	barFree     lipgloss.Style
	barReserve  lipgloss.Style
}

func newTheme(dark bool) *theme {
	ld := lipgloss.LightDark(dark)
	c := lipgloss.Color
	t := &theme{
		dark:    dark,
		accent:  ld(c("#2f5fd0"), c("#7aa2f7")),
		muted:   ld(c("#7a7f88"), c("#737994")),
		success: ld(c("#2e7d32"), c("#9ece6a")),
		failure: ld(c("#c62828"), c("#f7768e")),
		warning: ld(c("#a35f00"), c("#e0af68")),
		info:    ld(c("#00796b"), c("#7dcfff")),
	}
	s := lipgloss.NewStyle
	t.text = s()
	t.dim = s().Foreground(t.muted)
	t.faint = s().Foreground(t.muted).Italic(true)
	t.bold = s().Bold(true)
	t.userBar = s().Foreground(t.accent).Bold(true)
	t.userText = s().Foreground(ld(c("#1a1b26"), c("#e6e9f2")))
	t.errorText = s().Foreground(t.failure)
	t.warnText = s().Foreground(t.warning)
	t.okText = s().Foreground(t.success)
	t.infoText = s().Foreground(t.info)
	t.accentText = s().Foreground(t.accent)
	t.selected = s().Background(ld(c("#dde3f0"), c("#2f3549"))).Bold(true)
	t.statusBar = s().Foreground(ld(c("#3b3f4a"), c("#c0caf5")))
	t.statusModel = s().Foreground(t.accent).Bold(true)
	t.badge = s().Foreground(ld(c("#ffffff"), c("#1a1b26"))).Background(t.warning).Bold(true)
	t.rule = s().Foreground(ld(c("#c8ccd4"), c("#3b4261")))
	t.diffAdd = s().Foreground(t.success)
	t.diffDel = s().Foreground(t.failure)
	t.diffHunk = s().Foreground(t.info)
	t.diff = diffview.Styles{
		Context: t.dim,
		Add:     t.diffAdd,
		Del:     t.diffDel,
		AddWord: s().Foreground(t.success).Background(ld(c("#d7f5dc"), c("#2a3f2a"))).Bold(true),
		DelWord: s().Foreground(t.failure).Background(ld(c("#fbdada"), c("#4a2a30"))).Bold(true),
		Hunk:    t.diffHunk,
		Gutter:  s().Foreground(ld(c("#a0a4ac"), c("#565f89"))),
	}
	t.key = s().Foreground(t.accent).Bold(true)
	t.barSystem = s().Foreground(ld(c("#7b1fa2"), c("#bb9af7")))
	t.barTools = s().Foreground(ld(c("#00838f"), c("#7dcfff")))
	t.barMessages = s().Foreground(t.accent)
	t.barFree = s().Foreground(ld(c("#c8ccd4"), c("#3b4261")))
	t.barReserve = s().Foreground(t.warning)
	return t
}
