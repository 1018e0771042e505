package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

// TestShapedFindsSecretsInDisguise: a key or a token the model splits,
// spaces out or encodes is still a secret; ordinary facts are not.
func TestShapedFindsSecretsInDisguise(t *testing.T) {
	key := "sk-e2e-very-secret-key-0123456789"
	gh := "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" // no piece of key in it
	b64 := base64.StdEncoding.EncodeToString
	for _, tc := range []struct{ name, text, want string }{
		{"split in two", "part one sk-e2e-very-secret and part two -key-0123456789", "the API key"},
		{"a third, too short a piece to tell", "it ends -3456789", ""},
		{"one half alone", "it starts with sk-e2e-very-secr", "the API key"},
		{"spaced out", "key " + strings.Join(strings.Split(key, ""), " "), "the API key"},
		{"base64", "key " + b64([]byte(key)), "the API key"},
		{"base64 url unpadded", "key " + base64.RawURLEncoding.EncodeToString([]byte("the key is "+key)), "the API key"},
		{"base64 of a sentence, not aligned", b64([]byte("xy: " + key + " !")), "the API key"},
		{"hex", "key " + hex.EncodeToString([]byte(key)), "the API key"},
		{"base64 of a GitHub token", "gh " + b64([]byte(gh)), "a GitHub token"},
		{"base64 of a private key", b64([]byte("-----BEGIN RSA PRIVATE KEY-----\nMIIE")), "a private key"},
		{"an AWS secret access key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "an AWS secret access key"},
		{"plain fact", "the tests run with make check-all", ""},
		{"a commit hash", "the release is at commit 3f7a9c2e8b1d4f6a0c5e9b7d2a4f6c8e0b1d3f5a", ""},
		{"a base64 word", "the logo is data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", ""},
	} {
		if got := Shaped(tc.text, key); got != tc.want {
			t.Errorf("%s: Shaped(%q) = %q, want %q", tc.name, tc.text, got, tc.want)
		}
	}
}
