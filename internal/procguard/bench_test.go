package procguard

import "testing"

// BenchmarkHarden is Harden's cost on the start-up path, with a key in the
// environment (the environment block read and searched, the prctl calls).
func BenchmarkHarden(b *testing.B) {
	b.Setenv("OPENAI_API_KEY", marker)
	for b.Loop() {
		Harden()
	}
}
