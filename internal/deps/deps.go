// Package deps pins the modules the project is about to use so that go.sum
// stays complete while packages are being written. Remove once every module
// is imported by real code.
package deps

import (
	_ "charm.land/bubbles/v2/textarea"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/glamour/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/adrg/xdg"
	_ "github.com/alecthomas/chroma/v2"
	_ "github.com/aymanbagabas/go-udiff"
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/charmbracelet/x/ansi"
	_ "github.com/charmbracelet/x/exp/teatest/v2"
	_ "github.com/oklog/ulid/v2"
	_ "github.com/pkoukk/tiktoken-go"
	_ "github.com/pkoukk/tiktoken-go-loader"
	_ "github.com/sashabaranov/go-openai"
	_ "github.com/spf13/cobra"
	_ "go.uber.org/goleak"
	_ "modernc.org/sqlite"
)
