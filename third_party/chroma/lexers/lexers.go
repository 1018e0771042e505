package lexers

import (
	"embed"
	"io/fs"
	"strings"

	"github.com/alecthomas/chroma/v2"
)

//go:embed embedded
var embedded embed.FS

// GlobalLexerRegistry is the global LexerRegistry of Lexers.
//
// The embedded XML lexers are parsed at its first lookup, not at init
// (patched into this copy for github.com/ctxloop/agent: parsing them all
// took ≈ 7 ms and 2.7 MB at every start of a program that may never
// highlight anything); they come first, as they did when parsed at init.
var GlobalLexerRegistry = chroma.NewLazyLexerRegistry(func() []chroma.Lexer {
	paths, err := fs.Glob(embedded, "embedded/*.xml")
	if err != nil {
		panic(err)
	}
	lexers := make([]chroma.Lexer, 0, len(paths))
	for _, path := range paths {
		lexer := chroma.MustNewXMLLexer(embedded, path)
		if analyser := embeddedAnalysers[strings.ToLower(lexer.Config().Name)]; analyser != nil {
			lexer.SetAnalyser(analyser)
		}
		lexers = append(lexers, lexer)
	}
	return lexers
})

// embeddedAnalysers are the analysers of embedded lexers, by lower-case
// name, set where the lexers are parsed (they were set at init, by Get).
var embeddedAnalysers = map[string]func(text string) float32{}

// Names of all lexers, optionally including aliases.
func Names(withAliases bool) []string {
	return GlobalLexerRegistry.Names(withAliases)
}

// Aliases of all the lexers, and skip those lexers who do not have any aliases,
// or show their name instead
func Aliases(skipWithoutAliases bool) []string {
	return GlobalLexerRegistry.Aliases(skipWithoutAliases)
}

// Get a Lexer by name, alias or file extension.
//
// Note that this if there isn't an exact match on name or alias, this will
// call Match(), so it is not efficient.
func Get(name string) chroma.Lexer {
	return GlobalLexerRegistry.Get(name)
}

// MatchMimeType attempts to find a lexer for the given MIME type.
func MatchMimeType(mimeType string) chroma.Lexer {
	return GlobalLexerRegistry.MatchMimeType(mimeType)
}

// Match returns the first lexer matching filename.
//
// Note that this iterates over all file patterns in all lexers, so it's not
// particularly efficient.
func Match(filename string) chroma.Lexer {
	return GlobalLexerRegistry.Match(filename)
}

// Register a Lexer with the global registry.
func Register(lexer chroma.Lexer) chroma.Lexer {
	return GlobalLexerRegistry.Register(lexer)
}

// Analyse text content and return the "best" lexer..
func Analyse(text string) chroma.Lexer {
	return GlobalLexerRegistry.Analyse(text)
}

// PlaintextRules is used for the fallback lexer as well as the explicit
// plaintext lexer.
func PlaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{`.+`, chroma.Text, nil},
			{`\n`, chroma.Text, nil},
		},
	}
}

// Fallback lexer if no other is found.
var Fallback chroma.Lexer = chroma.MustNewLexer(&chroma.Config{
	Name:      "fallback",
	Filenames: []string{"*"},
	Priority:  -1,
}, PlaintextRules)
