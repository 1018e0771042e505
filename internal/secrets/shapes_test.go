package secrets

import "testing"

func TestShaped(t *testing.T) {
	key := "test-key-0123456789abcdef"
	for _, tc := range []struct{ text, want string }{
		{"the tests run with make check", ""},
		{"use sk-ABCDEFGHIJKLMNOPQRSTUVWX for staging", "an OpenAI-style API key"},
		{"token ghp_0123456789abcdefghijABCDEFGHIJ0123", "a GitHub token"},
		{"AKIAIOSFODNN7EXAMPLE is the deploy key", "an AWS access key"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nabc", "a private key"},
		{"xoxb-1234567890-abcdef", "a Slack token"},
		{"the key is " + key, "the API key"},
		{"the sk- prefix names OpenAI keys", ""},
	} {
		if got := Shaped(tc.text, key); got != tc.want {
			t.Errorf("Shaped(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
