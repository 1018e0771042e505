package secrets

// shapes.go: credentials recognised by their shape, for text the agent
// would keep (a remembered fact): not the agent's own key alone, but any
// token that looks like an API key, an access token or a private key.
// Shaped names the first kind found; it never returns the token itself.

import (
	"regexp"
	"sync"
)

// shape is a token shape and what to call it.
type shape struct {
	name string
	re   *regexp.Regexp
}

// shapes are the token shapes known, compiled on first use: a start of
// the agent pays nothing for them.
var shapes = sync.OnceValue(func() []shape {
	return []shape{
		{"an OpenAI-style API key", regexp.MustCompile(`\bsk-(?:proj-|ant-|or-v1-)?[A-Za-z0-9_-]{20,}`)},
		{"a GitHub token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)},
		{"a GitLab token", regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`)},
		{"an AWS access key", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
		{"an AWS secret access key", regexp.MustCompile(`(?i)aws.{0,20}secret.{0,20}[=:]\s*["']?[A-Za-z0-9/+]{40}`)},
		{"a Slack token", regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`)},
		{"a Google API key", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
		{"a Stripe key", regexp.MustCompile(`\b(?:sk|rk)_live_[0-9A-Za-z]{20,}`)},
		{"a JSON web token", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
		{"a private key", regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`)},
	}
})

// Shaped reports what kind of credential text holds, by its shape or as
// one of values (the agent's key, named "the API key"), plain or in a
// disguise (disguised.go: in pieces, spaced out, base64 or hex); "" when
// none.
func Shaped(text string, values ...string) string {
	if Contains(text, values...) {
		return "the API key"
	}
	if kind := shapeOf(text); kind != "" {
		return kind
	}
	return disguised(text, values, encodedDepth)
}

// shapeOf is the kind of the first token shape text holds, "" for none.
func shapeOf(text string) string {
	for _, s := range shapes() {
		if s.re.MatchString(text) {
			return s.name
		}
	}
	return ""
}
