package tools

import "bytes"

// Where foldScan anchors a case-insensitive literal. byteSet's cost is a
// guess about source text in general, and a guess can be badly wrong for
// one tree: ':' is rare in most code and on nearly every line of Go's
// `x := y`; and any one letter is on many lines. So each worker counts,
// over the first foldSampleBytes it reads, how often each two-byte window
// of the literal occurs in each of its case forms (bytes.Count, a few
// passes over 64 KiB once per search), and anchors on the window seen
// least (a form costs a pass of its own, so fewer forms break ties);
// before it has read anything, on the byte cost calls rarest. The anchor
// decides how often a candidate is compared, never what matches.

// foldSampleBytes is how much of a search's text a worker counts before
// its anchor is fixed.
const foldSampleBytes = 64 << 10

// foldWindow is an anchor: lit[k:k+width] in its n case forms.
type foldWindow struct {
	k, width, n int
	forms       [4][2]byte
}

// newFoldWindow returns lit[k:k+width] (width 1 or 2) with its case forms.
func newFoldWindow(lit []byte, k, width int) foldWindow {
	w := foldWindow{k: k, width: width, n: 1}
	copy(w.forms[0][:], lit[k:k+width])
	for j := range width {
		c := lit[k+j]
		u := upperASCII(c)
		if u == c {
			continue
		}
		for i := range w.n {
			w.forms[w.n+i] = w.forms[i]
			w.forms[w.n+i][j] = u
		}
		w.n *= 2
	}
	return w
}

// find returns the index of form i in hay, or -1.
func (w *foldWindow) find(hay []byte, i int) int {
	if w.width == 1 {
		return bytes.IndexByte(hay, w.forms[i][0])
	}
	return bytes.Index(hay, w.forms[i][:2])
}

// foldAnchor is one worker's choice of anchor for one literal (lower
// case); the zero value is ready for any literal.
type foldAnchor struct {
	lit     []byte
	counts  []int // occurrences of each window lit[i:i+2] (all forms) in the sample
	sampled int   // bytes counted so far
	win     foldWindow
	ready   bool // win is the choice for the counts so far
}

// pick returns the anchor for lit, after counting what of chunk is still
// to be sampled.
func (a *foldAnchor) pick(lit, chunk []byte) foldWindow {
	if !bytes.Equal(a.lit, lit) {
		*a = foldAnchor{lit: lit, counts: make([]int, max(len(lit)-1, 0))}
	}
	if a.sampled < foldSampleBytes && len(chunk) > 0 && len(lit) >= 2 {
		sample := chunk[:min(len(chunk), foldSampleBytes-a.sampled)]
		a.sampled += len(sample)
		for i := range a.counts {
			w := newFoldWindow(lit, i, 2)
			for f := range w.n {
				a.counts[i] += bytes.Count(sample, w.forms[f][:2])
			}
		}
		a.ready = false
	}
	if !a.ready {
		a.win, a.ready = a.choose(), true
	}
	return a.win
}

// choose returns the window seen least in the sample (a form costs about
// as much as a pass finding one in every 512 bytes), or before any, the
// byte cost calls rarest.
func (a *foldAnchor) choose() foldWindow {
	if a.sampled == 0 || len(a.counts) == 0 {
		k, best := 0, 1<<30
		for i, c := range a.lit {
			var s byteSet
			s.add(c)
			s.add(upperASCII(c))
			if cost := s.cost(); cost < best {
				k, best = i, cost
			}
		}
		return newFoldWindow(a.lit, k, 1)
	}
	var best foldWindow
	bestScore := -1
	for i, n := range a.counts {
		w := newFoldWindow(a.lit, i, 2)
		score := n + w.n*a.sampled/512
		if bestScore < 0 || score < bestScore {
			best, bestScore = w, score
		}
	}
	return best
}

// upperASCII returns c in upper case when it is an ASCII lower-case
// letter, else c.
func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
