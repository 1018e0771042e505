package storage

// openrepair.go: a resumed session's lease and repair in one write
// transaction (issue 36 item 1: `agent run -c` pays for what a new
// session does not). AcquireLease then RepairSession, as Open did, are two
// transactions that each check the session exists and read its lease;
// a session closed cleanly has nothing to repair, and the reads that say
// so go in the lease's transaction. Tool parts left pending or running
// are the exception: the processes they recorded must be stopped, outside
// any transaction, before the repair calls them interrupted, so then the
// lease commits alone and the caller repairs as before.

import (
	"context"
	"database/sql"

	"github.com/ctxloop/agent/internal/message"
)

// AcquireRepaired claims sessionID's lease as AcquireLease does and, in
// the same transaction, repairs what RepairSession would, unless the
// session has pending or running tool parts: then it commits the lease
// alone and returns those parts (pending and running tool parts, oldest first), and the
// caller stops what they left running and calls RepairSession. The
// repair's result and published parts and messages are RepairSession's.
func (s *Store) AcquireRepaired(ctx context.Context, sessionID string) (*Lease, Repair, []*message.Part, error) {
	op := "acquire session " + sessionID
	if err := s.writable(op); err != nil {
		return nil, Repair{}, nil, err
	}
	var (
		l          *Lease
		r          Repair
		unfinished []*message.Part
		parts      []*message.Part
		msgs       []*message.Message
	)
	err := s.inTx(ctx, op, func(tx *sql.Tx) error {
		var err error
		if l, err = s.leaseIn(ctx, tx, sessionID, true); err != nil {
			return err
		}
		if unfinished, err = unfinishedTools(ctx, tx, sessionID); err != nil || len(unfinished) > 0 {
			return err // the lease alone: the caller stops their processes first
		}
		r, parts, msgs, err = repairIn(ctx, tx, sessionID, false) // repair.go: no tool part to stop
		return err
	})
	if err != nil {
		return nil, Repair{}, nil, err
	}
	if l, err = s.holdLease(l, op); err != nil {
		return nil, Repair{}, nil, err
	}
	publishRepaired(s, parts, msgs)
	return l, r, unfinished, nil
}
