package markdown

import (
	"image/color"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// style is the look of a run of text. The zero style is the terminal's
// default. Styles nest by merging (an emphasis inside a link keeps the
// link's colour and adds italics).
type style struct {
	fg, bg                                   color.Color
	bold, italic, underline, strike, reverse bool
}

// merge returns s with o's attributes laid over it.
func (s style) merge(o style) style {
	if o.fg != nil {
		s.fg = o.fg
	}
	if o.bg != nil {
		s.bg = o.bg
	}
	s.bold = s.bold || o.bold
	s.italic = s.italic || o.italic
	s.underline = s.underline || o.underline
	s.strike = s.strike || o.strike
	s.reverse = s.reverse || o.reverse
	return s
}

func (s style) zero() bool { return s == style{} }

// sgr is the escape sequence that turns the style on from a reset state.
func (s style) sgr() string {
	var a ansi.Style
	if s.bold {
		a = a.Bold()
	}
	if s.italic {
		a = a.Italic(true)
	}
	if s.underline {
		a = a.Underline(true)
	}
	if s.strike {
		a = a.Strikethrough(true)
	}
	if s.reverse {
		a = a.Reverse(true)
	}
	if s.fg != nil {
		a = a.ForegroundColor(s.fg)
	}
	if s.bg != nil {
		a = a.BackgroundColor(s.bg)
	}
	return a.String()
}

// palette holds the styles of one background. Colours follow the chat's
// theme (internal/tui/theme.go) so that rendered text sits with the rest
// of the screen.
type palette struct {
	h1, heading, strong, emph, strike style
	code                              style // inline code
	link, url                         style
	marker                            style // list bullets and numbers
	checked                           style
	quote                             style // the bar before quoted lines
	rule                              style // thematic breaks and table borders
	tableHead                         style
	html                              style // raw HTML, shown as text
	image                             style

	// Code blocks: one style per token kind.
	tok [numKinds]style
}

func newPalette(dark bool) *palette {
	ld := lipgloss.LightDark(dark)
	c := lipgloss.Color
	accent := ld(c("#2f5fd0"), c("#7aa2f7"))
	muted := ld(c("#7a7f88"), c("#737994"))
	ruleC := ld(c("#c8ccd4"), c("#3b4261"))
	p := &palette{
		h1:      style{fg: ld(c("#ffffff"), c("#1a1b26")), bg: accent, bold: true},
		heading: style{fg: accent, bold: true},
		strong:  style{bold: true},
		emph:    style{italic: true},
		strike:  style{strike: true},
		// Greys that are exactly 256-colour greys (254, 236), so a downsampled
		// terminal shows them unchanged.
		code:      style{fg: ld(c("#a35f00"), c("#e0af68")), bg: ld(c("#e4e4e4"), c("#303030"))},
		link:      style{fg: accent, underline: true},
		url:       style{fg: muted, underline: true},
		marker:    style{fg: accent},
		checked:   style{fg: ld(c("#2e7d32"), c("#9ece6a"))},
		quote:     style{fg: muted},
		rule:      style{fg: ruleC},
		tableHead: style{bold: true},
		html:      style{fg: muted},
		image:     style{fg: muted, italic: true},
	}
	p.tok[kindKeyword] = style{fg: ld(c("#7b1fa2"), c("#bb9af7"))}
	p.tok[kindType] = style{fg: ld(c("#00796b"), c("#7dcfff"))}
	p.tok[kindString] = style{fg: ld(c("#2e7d32"), c("#9ece6a"))}
	p.tok[kindComment] = style{fg: muted, italic: true}
	p.tok[kindNumber] = style{fg: ld(c("#b15c00"), c("#ff9e64"))}
	p.tok[kindKey] = style{fg: accent}
	p.tok[kindAdd] = style{fg: ld(c("#2e7d32"), c("#9ece6a"))}
	p.tok[kindDel] = style{fg: ld(c("#c62828"), c("#f7768e"))}
	p.tok[kindHunk] = style{fg: ld(c("#00796b"), c("#7dcfff"))}
	p.tok[kindHeader] = style{bold: true}
	return p
}

// palettes are built on first use, not at package init: the binary's
// start-up (agent run included) pays nothing for them.
var palettes = [2]func() *palette{
	sync.OnceValue(func() *palette { return newPalette(false) }),
	sync.OnceValue(func() *palette { return newPalette(true) }),
}

func paletteFor(dark bool) *palette {
	if dark {
		return palettes[1]()
	}
	return palettes[0]()
}

// seg is a run of text in one style, maybe part of a link. Its text holds
// no control characters and no newline.
type seg struct {
	text string
	st   style
	link string // the URL of an OSC 8 hyperlink around the text, or ""
}

// emit writes segs as one terminal line: each run is styled from a reset
// state and reset after, so a line never depends on the one before it
// (the chat lays lines out one by one).
func emit(b *strings.Builder, segs []seg) {
	for i := 0; i < len(segs); {
		s := segs[i]
		// Merge the following runs of the same look.
		j := i + 1
		text := s.text
		for j < len(segs) && segs[j].st == s.st && segs[j].link == s.link {
			text += segs[j].text
			j++
		}
		i = j
		if text == "" {
			continue
		}
		if s.link != "" {
			b.WriteString(ansi.SetHyperlink(s.link))
		}
		if s.st.zero() {
			b.WriteString(text)
		} else {
			b.WriteString(s.st.sgr())
			b.WriteString(text)
			b.WriteString(ansi.ResetStyle)
		}
		if s.link != "" {
			b.WriteString(ansi.ResetHyperlink())
		}
	}
}
