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
// it was handed, which the reader no longer touches until wait returns
// (they lie in arrays that never move: windowread.go's chunks).

import "github.com/ctxloop/agent/internal/message"

// statePipeBatch is how many parts a batch hands the decoder.
const statePipeBatch = 64

// statePipe decodes the states of the parts it is handed, in order, on
// its own goroutine.
type statePipe struct {
	deltas  map[string]string
	batch   stateBatch // the batch being filled
	batches chan stateBatch
	done    chan error
}

// stateBatch is parts (in the reader's arrays, which never move) and
// their states.
type stateBatch struct {
	parts  []*message.Part
	states [][]byte
}

func newStatePipe(deltas map[string]string) *statePipe {
	p := &statePipe{deltas: deltas, batches: make(chan stateBatch, 4), done: make(chan error, 1)}
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
			q := b.parts[i]
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

// add hands part q and its state to the decoder; neither may be touched
// (nor q move) until wait returns.
func (p *statePipe) add(q *message.Part, state []byte) {
	if len(p.batch.states) == 0 {
		p.batch = stateBatch{make([]*message.Part, 0, statePipeBatch), make([][]byte, 0, statePipeBatch)}
	}
	p.batch.parts = append(p.batch.parts, q)
	p.batch.states = append(p.batch.states, state)
	if len(p.batch.states) == statePipeBatch {
		p.flush()
	}
}

func (p *statePipe) flush() {
	if len(p.batch.states) > 0 {
		p.batches <- p.batch
		p.batch = stateBatch{}
	}
}

// wait hands the last batch, waits until every state handed is decoded
// and returns the first error.
func (p *statePipe) wait() error {
	p.flush()
	close(p.batches)
	return <-p.done
}
