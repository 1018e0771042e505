package snapshot

// adler.go: the Adler-32 of zlib's stored blocks, 32 bytes at a time with
// AVX2 (adler_amd64.s), else eight (hash/adler32 adds a byte at a time,
// each sum waiting for the last: a tenth of a first snapshot's CPU
// outside git). Contract: adler32Update returns what hash/adler32's
// digest would after writing p to one whose sum is adler (adler_test.go
// checks both paths against it).
//
// With AVX2, per block of 32 bytes: VPSADBW sums its bytes, VPMADDUBSW
// and VPMADDWD weigh them 32 … 1, and the running byte sum is added up
// before each block (×32 at the end), as zlib-ng and Chromium do.
//
// Without:
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

// adler32Update is the Adler-32 of the bytes summed in adler followed by
// p: with AVX2, its runs of 32-byte blocks summed by adlerRunAVX2
// (adler_amd64.s), the rest by adler32Generic.
func adler32Update(adler uint32, p []byte) uint32 {
	if !useAVX2 || len(p) < 64 {
		return adler32Generic(adler, p)
	}
	s1, s2 := uint64(adler&0xffff), uint64(adler>>16)
	for len(p) >= 32 {
		blocks := min(len(p)/32, adlerRunBlocks)
		var out [12]uint64
		adlerRunAVX2(&p[0], blocks, &out)
		// out: the byte sums and the sums of the sums before each block
		// (four 64-bit lanes each), then the bytes weighted 32 … 1 in
		// their block (eight 32-bit lanes).
		sum := out[0] + out[1] + out[2] + out[3]
		before := out[4] + out[5] + out[6] + out[7]
		var weighted uint64
		for _, v := range out[8:12] {
			weighted += v&0xffffffff + v>>32
		}
		s2 = (s2 + uint64(blocks*32)*s1 + 32*before + weighted) % adlerMod
		s1 = (s1 + sum) % adlerMod
		p = p[blocks*32:]
	}
	return adler32Generic(uint32(s2)<<16|uint32(s1), p)
}

// adlerRunBlocks is the most 32-byte blocks adlerRunAVX2 sums at once:
// zlib's NMAX (5,552 bytes), so that no lane overflows.
const adlerRunBlocks = 173

// adler32Generic is adler32Update without vector instructions.
func adler32Generic(adler uint32, p []byte) uint32 {
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
