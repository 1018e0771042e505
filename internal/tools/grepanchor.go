package tools

import "bytes"

// Which byte of a case-insensitive literal foldScan looks for. byteSet's
// cost is a guess about source text in general, and a guess can be badly
// wrong for one tree: ':' is rare in most code and on nearly every line of
// Go's `x := y`. So each worker counts, over the first foldSampleBytes it
// reads, how often each byte of the literal occurs (in both cases for a
// letter; bytes.Count, a few passes over 64 KiB once per search), and
// anchors on the rarest seen so far; cost only breaks ties. The anchor
// decides how often a candidate is compared, never what matches.

// foldSampleBytes is how much of a search's text a worker counts before
// its anchor is fixed.
const foldSampleBytes = 64 << 10

// foldAnchor is one worker's choice of anchor for one literal (lower
// case); the zero value is ready for any literal.
type foldAnchor struct {
	lit     []byte
	cost    []int    // byteSet.cost of each index's byte in both cases
	counts  [256]int // occurrences of the literal's bytes in the sample
	sampled int      // bytes counted so far
	k       int      // the chosen index in lit
	pair    [2]byte  // its byte in both cases
	ready   bool     // k and pair hold the choice for the counts so far
}

// pick returns the index of the anchor in lit and its two cases, after
// counting what of chunk is still to be sampled.
func (a *foldAnchor) pick(lit, chunk []byte) (int, [2]byte) {
	if !bytes.Equal(a.lit, lit) {
		*a = foldAnchor{lit: lit, cost: make([]int, len(lit))}
		for i, c := range lit {
			var s byteSet
			s.add(c)
			s.add(upperASCII(c))
			a.cost[i] = s.cost()
		}
	}
	if a.sampled < foldSampleBytes && len(chunk) > 0 {
		sample := chunk[:min(len(chunk), foldSampleBytes-a.sampled)]
		a.sampled += len(sample)
		var seen [256]bool
		for _, c := range a.lit {
			for _, b := range [2]byte{c, upperASCII(c)} {
				if !seen[b] {
					seen[b] = true
					one := [1]byte{b}
					a.counts[b] += bytes.Count(sample, one[:])
				}
			}
		}
		a.ready = false
	}
	if !a.ready {
		best := -1
		for i := range a.lit {
			n := a.freq(i)
			if best < 0 || n < a.freq(best) || n == a.freq(best) && a.cost[i] < a.cost[best] {
				best = i
			}
		}
		a.k, a.pair, a.ready = best, [2]byte{a.lit[best], upperASCII(a.lit[best])}, true
	}
	return a.k, a.pair
}

// freq is the sampled occurrences of lit[i] in both cases.
func (a *foldAnchor) freq(i int) int {
	c := a.lit[i]
	n := a.counts[c]
	if u := upperASCII(c); u != c {
		n += a.counts[u]
	}
	return n
}

// upperASCII returns c in upper case when it is an ASCII lower-case
// letter, else c.
func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
