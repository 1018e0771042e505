package snapshot

// adler.go: the Adler-32 of zlib's stored blocks, eight bytes at a time
// (hash/adler32 adds a byte at a time, each sum waiting for the last: a
// tenth of a first snapshot's CPU outside git). Contract: adler32Update
// returns what hash/adler32's digest would after writing p to one whose
// sum is adler (adler_test.go checks them against each other).
//
// For a run of N bytes b_0 … b_{N-1}, s1 grows by Σ b_i and s2 by
// N·s1 + Σ (N−i)·b_i. Read as N/8 words of eight bytes, word t's bytes
// summed as B_t and byte k of every word as L_k, Σ (N−i)·b_i =
// 8·Σ_t P_t − Σ_k k·L_k, P_t the sum of B_0 … B_t: a running sum and a
// sum of running sums per word, and L_k in 16-bit lanes, four to a
// register, flushed before they can overflow.

import "encoding/binary"

const (
	adlerMod = 65521
	// adlerWords is the most words whose lane sums fit 16 bits
	// (255 · 256 < 65536).
	adlerWords = 256
	laneMask   = 0x00ff00ff00ff00ff
)

// adler32Update is the Adler-32 of the bytes summed in adler followed by p.
func adler32Update(adler uint32, p []byte) uint32 {
	s1, s2 := uint64(adler&0xffff), uint64(adler>>16)
	for len(p) >= 8 {
		words := min(len(p)/8, adlerWords)
		var ev, od, sum, sums uint64 // even and odd bytes' lanes; P; Σ P
		q := p[:words*8]
		for i := 0; i+16 <= len(q); i += 16 { // two words a turn
			x, y := binary.LittleEndian.Uint64(q[i:]), binary.LittleEndian.Uint64(q[i+8:])
			ex, ox := x&laneMask, x>>8&laneMask
			ey, oy := y&laneMask, y>>8&laneMask
			ev += ex + ey
			od += ox + oy
			bx := (ex + ox) * 0x0001000100010001 >> 48
			by := (ey + oy) * 0x0001000100010001 >> 48
			sums += 2*sum + 2*bx + by
			sum += bx + by
		}
		if words%2 == 1 {
			x := binary.LittleEndian.Uint64(q[len(q)-8:])
			e, o := x&laneMask, x>>8&laneMask
			ev += e
			od += o
			sum += (e + o) * 0x0001000100010001 >> 48
			sums += sum
		}
		var weighted uint64 // Σ k·L_k
		for j := range 4 {
			weighted += uint64(2*j)*(ev>>(16*j)&0xffff) + uint64(2*j+1)*(od>>(16*j)&0xffff)
		}
		n := uint64(words * 8)
		s2 = (s2 + n*s1 + 8*sums - weighted) % adlerMod
		s1 = (s1 + sum) % adlerMod
		p = p[words*8:]
	}
	for _, b := range p {
		s1 += uint64(b)
		s2 += s1
	}
	return uint32(s2%adlerMod)<<16 | uint32(s1%adlerMod)
}
