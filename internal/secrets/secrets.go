// Package secrets keeps the agent's credentials out of what it starts and
// what it stores.
//
// The contract: Environ returns a copy of an environment without the
// variables that carry the agent's secrets (OPENAI_API_KEY, any name the
// caller adds, and any variable whose value is one of the secret values, so
// an alias such as MY_KEY=$OPENAI_API_KEY goes too). Every process the agent
// starts — tool commands and its own git — gets such an environment. Redact
// is the last line of defence for text that is stored or shown: every
// occurrence of a secret value becomes "[redacted]". Values shorter than
// MinSecretLen are never treated as secrets (redacting "a" would mangle
// everything).
package secrets

import (
	"os"
	"strings"
)

// Names are the environment variables that always carry a secret of the
// agent's.
var Names = []string{"OPENAI_API_KEY"}

// MinSecretLen is the shortest value treated as a secret.
const MinSecretLen = 4

// Placeholder replaces a secret in redacted text.
const Placeholder = "[redacted]"

// Environ returns env (os.Environ() when nil) without the variables named in
// Names or extraNames and without any variable whose value equals one of
// values. The result is a new slice; env is not changed.
func Environ(env []string, extraNames []string, values ...string) []string {
	if env == nil {
		env = os.Environ()
	}
	drop := make(map[string]bool, len(Names)+len(extraNames))
	for _, n := range Names {
		drop[n] = true
	}
	for _, n := range extraNames {
		drop[n] = true
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if drop[name] || isSecret(value, values) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Redact replaces every occurrence of each secret value in text with
// Placeholder. Values shorter than MinSecretLen are ignored.
func Redact(text string, values ...string) string {
	for _, v := range values {
		if len(v) >= MinSecretLen && strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, Placeholder)
		}
	}
	return text
}

// Contains reports whether text holds any of the secret values.
func Contains(text string, values ...string) bool {
	for _, v := range values {
		if len(v) >= MinSecretLen && strings.Contains(text, v) {
			return true
		}
	}
	return false
}

func isSecret(value string, values []string) bool {
	for _, v := range values {
		if len(v) >= MinSecretLen && value == v {
			return true
		}
	}
	return false
}
