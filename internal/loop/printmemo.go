package loop

// The first request's print after a resume. With no request before it
// to compare with, the cache-boundary print (cacheboundary.go) would hash
// every encoded message of the request — 1.9 MB for a resumed session of
// 10,000 parts, ≈ 1 ms between Enter and the request. The warming that
// makes that request's conversation ahead (prebuildRequest) hashes its
// encodings while the user types: the request cache hands the request the
// same slices when the entries did not change, so the print finds their
// hashes there; an encoding made anew (the new user message, the pins)
// is not in the memo and is hashed as before. The print takes the memo
// (one use), so it is held only from the warming to the first request.
//
// The memo is positional: the request sends the warming's messages in
// the warming's order, with a few messages of its own between them (the
// pins, the todo list) and after them (the new message). A print walks
// the memo with a cursor beside the request's messages, so a message the
// warming made costs a comparison of two slice headers, not a map lookup;
// one not at the cursor is looked up by its first byte's address (an
// order the cursor does not follow still finds its hashes).

// printMemo is the hashes of encodings in the order they were made, and
// the place of each by its first byte's address.
type printMemo struct {
	enc    [][]byte
	prints []partPrint
	at     map[*byte]int
}

// memoOf hashes encs.
func memoOf(encs [][]byte) *printMemo {
	m := &printMemo{enc: encs, prints: make([]partPrint, len(encs)), at: make(map[*byte]int, len(encs))}
	for i, b := range encs {
		if len(b) > 0 {
			m.prints[i] = printOf(b)
			m.at[&b[0]] = i
		}
	}
	return m
}

// len is how many encodings m holds (0 for nil).
func (m *printMemo) len() int {
	if m == nil {
		return 0
	}
	return len(m.at)
}

// memoCursor is one print's walk over a memo.
type memoCursor struct {
	m    *printMemo
	next int // where the next message is looked for first
}

// of is the memo's print of b: the same slice (address and length).
func (c *memoCursor) of(b []byte) (partPrint, bool) {
	m := c.m
	if m == nil || len(b) == 0 {
		return partPrint{}, false
	}
	i := c.next
	if i >= len(m.enc) || !sameBytes(m.enc[i], b) {
		var ok bool
		if i, ok = m.at[&b[0]]; !ok || !sameBytes(m.enc[i], b) {
			return partPrint{}, false
		}
	}
	c.next = i + 1
	return m.prints[i], true
}

// setMemo keeps m for the next print.
func (w *boundaryWatch) setMemo(m *printMemo) {
	w.mu.Lock()
	w.memo = m
	w.mu.Unlock()
}

// takeMemo returns the memo and lets it go.
func (w *boundaryWatch) takeMemo() *printMemo {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.memo
	w.memo = nil
	return m
}
