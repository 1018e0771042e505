package tui

import uitheme "github.com/ctxloop/agent/internal/tui/theme"

// theme is the chat's styles (theme/theme.go), shared with the overlays.
type theme = uitheme.Theme

func newTheme(dark bool) *theme { return uitheme.New(dark) }
