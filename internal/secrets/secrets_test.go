package secrets

import (
	"slices"
	"testing"
)

func TestEnvironDropsSecrets(t *testing.T) {
	env := []string{
		"PATH=/bin",
		"OPENAI_API_KEY=sk-live-123456",
		"ALIAS=sk-live-123456",
		"OTHER_TOKEN=abc-987654",
		"SHORT=ab",
		"HOME=/home/u",
	}
	got := Environ(env, []string{"OTHER_TOKEN"}, "sk-live-123456", "ab")
	want := []string{"PATH=/bin", "SHORT=ab", "HOME=/home/u"}
	if !slices.Equal(got, want) {
		t.Fatalf("Environ = %q, want %q", got, want)
	}
	if len(env) != 6 || env[1] != "OPENAI_API_KEY=sk-live-123456" {
		t.Fatalf("Environ changed its input: %q", env)
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"key=sk-live-123456 and sk-live-123456", "key=[redacted] and [redacted]"},
		{"nothing here", "nothing here"},
		{"a b a", "a b a"}, // too short to be a secret
	} {
		if got := Redact(tc.in, "sk-live-123456", "a"); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if !Contains("x sk-live-123456 y", "sk-live-123456") || Contains("x", "sk-live-123456") {
		t.Fatal("Contains is wrong")
	}
}
