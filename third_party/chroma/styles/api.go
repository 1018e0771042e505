package styles

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed *.xml
var embedded embed.FS

// Registry of Styles.
//
// The embedded styles are parsed at the first call of a function of this
// package, not at init (patched into this copy for github.com/ctxloop/agent:
// parsing them took ≈ 7 ms and 1.9 MB at every start); a style registered
// before that keeps its place over an embedded one of the same name, as it
// did when the embedded ones were parsed at init. Read Registry directly
// only after such a call.
var Registry = map[string]*chroma.Style{}

// Fallback style. Reassign to change the default fallback style; nil until
// the embedded styles are loaded, then "swapoff" unless reassigned.
var Fallback *chroma.Style

var loadOnce sync.Once

// load parses the embedded styles into Registry, once.
func load() {
	loadOnce.Do(func() {
		files, err := fs.ReadDir(embedded, ".")
		if err != nil {
			panic(err)
		}
		for _, file := range files {
			if file.IsDir() {
				continue
			}
			r, err := embedded.Open(file.Name())
			if err != nil {
				panic(err)
			}
			style, err := chroma.NewXMLStyle(r)
			if err != nil {
				panic(err)
			}
			if _, ok := Registry[strings.ToLower(style.Name)]; !ok {
				Registry[strings.ToLower(style.Name)] = style
			}
			_ = r.Close()
		}
		if Fallback == nil {
			Fallback = Registry["swapoff"]
		}
	})
}

// Register a chroma.Style.
func Register(style *chroma.Style) *chroma.Style {
	load()
	Registry[strings.ToLower(style.Name)] = style
	return style
}

// Names of all available styles.
func Names() []string {
	load()
	out := []string{}
	for name := range Registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Get named style, or Fallback.
func Get(name string) *chroma.Style {
	load()
	if style, ok := Registry[strings.ToLower(name)]; ok {
		return style
	}
	return Fallback
}

// GetForMode returns the named style if it already matches mode, otherwise its
// registered counterpart if one exists and matches mode. If neither matches,
// the originally-requested style is returned (or Fallback if the name is
// unknown), so callers always get something usable.
func GetForMode(name string, mode chroma.Mode) *chroma.Style {
	style := Get(name)
	if style.Mode() == mode {
		return style
	}
	if style.Counterpart == "" {
		return style
	}
	counterpart, ok := Registry[style.Counterpart]
	if !ok || counterpart.Mode() != mode {
		return style
	}
	return counterpart
}

// RegisterPair links two styles as light/dark counterparts of each other.
//
// Both styles are also registered if they are not already present.
func RegisterPair(a, b *chroma.Style) {
	Register(a)
	Register(b)
	a.Counterpart = strings.ToLower(b.Name)
	b.Counterpart = strings.ToLower(a.Name)
}
