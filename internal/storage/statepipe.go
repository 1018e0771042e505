package storage

// statepipe.go: the window's part states decoded on a second goroutine
// while SQLite steps to the next rows (issue 36, resume4). Reading the
// window's parts is stepping the rows (one goroutine: the connection)
// and decoding each part's JSON state (a fifth to a third of it); with a
// pipe the decoding of a batch overlaps the stepping of the next, so
// the read takes the longer of the two, not their sum, when a core is
// free, and the same CPU when none is. Contract: the parts end as
// decodeState (and the deltas) make them in order, the first error
// (in the parts' order) is returned, and the pipe writes only the parts
// it was handed, which the reader no longer touches until wait returns.

import "github.com/ctxloop/agent/internal/message"

// statePipeBatch is how many parts a batch hands the decoder.
const statePipeBatch = 64

// statePipe decodes the states of parts[i] for the indexes it is handed,
// in order, on its own goroutine.
type statePipe struct {
	parts   []message.Part // the reader's array; its length never grows past cap
	deltas  map[string]string
	states  [][]byte // the batch being filled: states of parts[at:at+len]
	at      int
	batches chan stateBatch
	done    chan error
}

type stateBatch struct {
	at     int
	states [][]byte
}

func newStatePipe(parts []message.Part, deltas map[string]string) *statePipe {
	p := &statePipe{parts: parts, deltas: deltas, batches: make(chan stateBatch, 4), done: make(chan error, 1)}
	go p.decode()
	return p
}

func (p *statePipe) decode() {
	var first error
	for b := range p.batches {
		if first != nil {
			continue // drained: the reader stops at wait
		}
		for i, st := range b.states {
			q := &p.parts[b.at+i]
			if err := decodeState(q, st); err != nil {
				first = err
				break
			}
			if d, ok := p.deltas[q.ID]; ok {
				q.Text += d
			}
		}
	}
	p.done <- first
}

// add hands the state of parts[i] (the next index) to the decoder; state
// must stay unchanged until wait returns.
func (p *statePipe) add(i int, state []byte) {
	if len(p.states) == 0 {
		p.at = i
		p.states = make([][]byte, 0, statePipeBatch)
	}
	p.states = append(p.states, state)
	if len(p.states) == statePipeBatch {
		p.flush()
	}
}

func (p *statePipe) flush() {
	if len(p.states) > 0 {
		p.batches <- stateBatch{p.at, p.states}
		p.states = nil
	}
}

// wait hands the last batch, waits until every state handed is decoded
// and returns the first error.
func (p *statePipe) wait() error {
	p.flush()
	close(p.batches)
	return <-p.done
}
