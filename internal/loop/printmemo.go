package loop

// The first request's print after a resume. With no request before it
// to compare with, the cache-boundary print (cacheboundary.go) would hash
// every encoded message of the request — 1.9 MB for a resumed session of
// 10,000 parts, ≈ 1 ms between Enter and the request. The warming that
// makes that request's conversation ahead (prebuildRequest) hashes its
// encodings while the user types, keyed by the address of their first
// byte: the request cache hands the request the same slices when the
// entries did not change, so the print finds their hashes there; an
// encoding made anew (the new user message) is not in the memo and is
// hashed as before. The print takes the memo (one use), so it is held
// only from the warming to the first request.

// printMemo is the hashes of encodings, by their first byte's address.
type printMemo map[*byte]partPrint

// memoOf hashes encs.
func memoOf(encs [][]byte) printMemo {
	m := make(printMemo, len(encs))
	for _, b := range encs {
		if len(b) > 0 {
			m[&b[0]] = printOf(b)
		}
	}
	return m
}

// of is the memo's print of b: the same slice (address and length).
func (m printMemo) of(b []byte) (partPrint, bool) {
	if len(b) == 0 {
		return partPrint{}, false
	}
	p, ok := m[&b[0]]
	return p, ok && p.bytes == len(b)
}

// setMemo keeps m for the next print.
func (w *boundaryWatch) setMemo(m printMemo) {
	w.mu.Lock()
	w.memo = m
	w.mu.Unlock()
}

// takeMemo returns the memo and lets it go.
func (w *boundaryWatch) takeMemo() printMemo {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.memo
	w.memo = nil
	return m
}
