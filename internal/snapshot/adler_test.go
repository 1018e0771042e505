package snapshot

import (
	"hash/adler32"
	"math/rand/v2"
	"testing"
)

// FuzzAdler32UpdateIsHashAdler32: adler32Update (AVX2 where the CPU has
// it) and adler32Generic agree with hash/adler32 for any bytes, split
// anywhere (the sum carried from the first part).
func FuzzAdler32UpdateIsHashAdler32(f *testing.F) {
	f.Add([]byte{}, 0)
	f.Add([]byte("abc"), 1)
	f.Add(make([]byte, 5000), 100)
	ff := make([]byte, 70_000)
	for i := range ff {
		ff[i] = 0xff
	}
	f.Add(ff, 65_535)
	f.Fuzz(func(t *testing.T, p []byte, cut int) {
		if cut < 0 || cut > len(p) {
			cut = len(p) / 2
		}
		want := adler32.Checksum(p)
		if got := adler32Update(adler32Update(1, p[:cut]), p[cut:]); got != want {
			t.Fatalf("%d bytes cut at %d: %08x, hash/adler32 %08x", len(p), cut, got, want)
		}
		if got := adler32Generic(adler32Generic(1, p[:cut]), p[cut:]); got != want {
			t.Fatalf("generic: %d bytes cut at %d: %08x, hash/adler32 %08x", len(p), cut, got, want)
		}
	})
}

// TestAdler32UpdateIsHashAdler32: every length to 5,000 and a few large
// ones, random bytes and all 0xff (the largest sums), against
// hash/adler32, with AVX2 (where the CPU has it) and without.
func TestAdler32UpdateIsHashAdler32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	ff := make([]byte, len(big))
	for i := range ff {
		ff[i] = 0xff
	}
	lengths := []int{65_535, 65_536, 1 << 20, len(big)}
	for n := range 5000 {
		lengths = append(lengths, n)
	}
	for _, src := range [][]byte{big, ff} {
		for _, n := range lengths {
			want := adler32.Checksum(src[:n])
			if got := adler32Update(1, src[:n]); got != want {
				t.Fatalf("%d bytes: %08x, hash/adler32 %08x", n, got, want)
			}
			if got := adler32Generic(1, src[:n]); got != want {
				t.Fatalf("generic: %d bytes: %08x, hash/adler32 %08x", n, got, want)
			}
		}
	}
}

func BenchmarkAdler32(b *testing.B) {
	p := make([]byte, 64<<10)
	for i := range p {
		p[i] = byte(i * 7)
	}
	b.Run("hash/adler32", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			adler32.Checksum(p)
		}
	})
	b.Run("adler32Generic", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			adler32Generic(1, p)
		}
	})
	b.Run("adler32Update", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			adler32Update(1, p)
		}
	})
}
