package secrets

// disguised.go: a secret value in a disguise, for text the agent would
// keep (Shaped): cut into pieces with other text between them, spaced or
// punctuated out, or encoded as base64 or hex (the model can do any of
// these on its own or when a prompt injection asks it to). The rules:
//
//   - Letters and digits are compared, case folded, with everything else
//     removed from both the text and the value; a piece of the value of
//     at least fragmentRunes of them (or a third of the value, when that
//     is longer) counts as the value. A shorter piece says too little.
//   - Every run of base64 or hex of at least minEncodedLen characters is
//     decoded (at each alignment) and the decoded text is judged as the
//     text is, known token shapes included, encodedDepth levels deep.

import (
	"encoding/base64"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

const (
	// fragmentRunes is the shortest piece of a value that counts as it.
	fragmentRunes = 10
	// minEncodedLen is the shortest base64 or hex run decoded.
	minEncodedLen = 16
	// encodedDepth bounds decoding inside decoded text.
	encodedDepth = 2
)

// base64Run and hexRun find encoded runs, compiled on first use (a
// start pays nothing for them: TestE2EInitAllocatesLittle).
var (
	base64Run = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z0-9+/_-]{16,}`) })
	hexRun    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9A-Fa-f]{16,}`) })
)

// disguised is the kind of secret text holds in a disguise ("" for none):
// "the API key" for one of values, or a shape's name in decoded text.
func disguised(text string, values []string, depth int) string {
	if holdsPiece(text, values) {
		return "the API key"
	}
	if depth == 0 {
		return ""
	}
	for _, dec := range decodedRuns(text) {
		if Contains(dec, values...) {
			return "the API key"
		}
		if kind := disguised(dec, values, depth-1); kind != "" {
			return kind
		}
		if kind := shapeOf(dec); kind != "" {
			return kind
		}
	}
	return ""
}

// holdsPiece reports whether text, letters and digits only, holds a
// piece of a value long enough to count.
func holdsPiece(text string, values []string) bool {
	t := alnum(text)
	for _, v := range values {
		if len(v) < MinSecretLen {
			continue
		}
		nv := alnum(v)
		n := max(fragmentRunes, len(nv)/3)
		for i := 0; i+n <= len(nv); i++ {
			if strings.Contains(t, nv[i:i+n]) {
				return true
			}
		}
	}
	return false
}

// alnum is s's ASCII letters and digits, lower-cased.
func alnum(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteByte(c)
		}
	}
	return b.String()
}

// decodedRuns are text's base64 and hex runs decoded, at each alignment,
// those that decode to UTF-8 text.
func decodedRuns(text string) []string {
	var out []string
	keep := func(b []byte, err error) {
		if err == nil && len(b) > 0 && utf8.Valid(b) {
			out = append(out, string(b))
		}
	}
	for _, run := range base64Run().FindAllString(text, -1) {
		for off := 0; off < 4 && len(run)-off >= minEncodedLen; off++ {
			s := run[off:]
			if len(s)%4 == 1 { // one character short of a byte
				s = s[:len(s)-1]
			}
			keep(base64.RawStdEncoding.DecodeString(s))
			keep(base64.RawURLEncoding.DecodeString(s))
		}
	}
	for _, run := range hexRun().FindAllString(text, -1) {
		for off := 0; off < 2; off++ {
			s := run[off:]
			keep(hex.DecodeString(s[:len(s)-len(s)%2]))
		}
	}
	return out
}
